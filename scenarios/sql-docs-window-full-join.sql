-- The Flink documentation's window FULL JOIN (Queries > Window JOIN), pasted as written: its
-- tables (as `desc` prints them), its rows and its query. Rows of one tumbling 5-minute window
-- join on num; a row without a partner in its window comes out padded with NULLs when the
-- window closes. L2 (12:06) and R2 (12:01) have the same num but fall into different windows.
--
-- Real Flink 2.3.0 differs from the table printed in the documentation: the query selects
-- L.window_start and L.window_end, which are NULL on the rows that only the right table has
-- (R2, R4). The documentation shows their windows there (12:00/12:05 and 12:05/12:10), as
-- COALESCE(L.window_start, R.window_start) would give. Real Flink wins: Joinlab gives NULL.
--
-- The rows carry no arrival annotations: each table's rows arrive in the order written, the
-- two tables merged by time. L3 (12:03) comes after L2 (12:06), behind LeftTable's watermark,
-- yet it is not late: the window join's watermark is the smaller of its two inputs', and
-- RightTable's stops at 12:04:59 (R4 - 1 s), before the first window's end. So no window
-- closes before the end of input: all five rows come out on the final watermark.
CREATE TABLE LeftTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
);
CREATE TABLE RightTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
);
INSERT INTO LeftTable VALUES
  (TIMESTAMP '2020-04-15 12:02:00', 1, 'L1'),
  (TIMESTAMP '2020-04-15 12:06:00', 2, 'L2'),
  (TIMESTAMP '2020-04-15 12:03:00', 3, 'L3');
INSERT INTO RightTable VALUES
  (TIMESTAMP '2020-04-15 12:01:00', 2, 'R2'),
  (TIMESTAMP '2020-04-15 12:04:00', 3, 'R3'),
  (TIMESTAMP '2020-04-15 12:05:00', 4, 'R4');
SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id, L.window_start, L.window_end
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L
           FULL JOIN (
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) R
           ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
