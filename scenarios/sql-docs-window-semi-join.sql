-- The Flink documentation's window semi join written with IN (Queries > Window JOIN > SEMI),
-- pasted as written: its tables (as `desc` prints them), its rows and its query. A left row
-- is kept when its window of the right table has a row with the same num. Inside the
-- subquery, the unqualified `num` is the subquery's own table's (SQL looks in the inner
-- scope first). Only L3 (num 3, 12:03) has a partner in its window (R3, 12:04); L2 and R2
-- share num 2 but fall into different windows. Real Flink 2.3.0 gives this one row, as the
-- documentation shows.
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
SELECT *
           FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
           ) L WHERE L.num IN (
             SELECT num FROM (
               SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
             ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
