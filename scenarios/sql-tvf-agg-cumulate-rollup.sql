-- CUMULATE windows of up to 30 minutes in 10-minute steps, with ROLLUP: each order counts in
-- every step of its window (12:10, 12:20, 12:30) for (supplier, item), for supplier, and for
-- all; each step's rows appear when the watermark passes that step's end.
SET 'parallelism.default' = '2';
CREATE TABLE bid (
  supplier STRING,
  item STRING,
  price INT,
  bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' MINUTE
);
INSERT INTO bid VALUES
  ('s1', 'A', 4, TIMESTAMP '2021-11-01 12:05:00'),
  ('s2', 'B', 2, TIMESTAMP '2021-11-01 12:08:00'),
  ('s1', 'B', 5, TIMESTAMP '2021-11-01 12:14:00'),
  ('s1', 'A', 3, TIMESTAMP '2021-11-01 12:25:00'),
  ('s2', 'B', 6, TIMESTAMP '2021-11-01 12:31:00');

SELECT window_start, window_end, supplier, item, COUNT(*) AS bids, SUM(price) AS total
FROM TABLE(CUMULATE(TABLE bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE))
GROUP BY window_start, window_end, ROLLUP (supplier, item);
