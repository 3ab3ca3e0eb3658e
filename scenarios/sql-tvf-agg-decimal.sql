-- TUMBLE windows of 5 minutes over a DECIMAL(10, 2) price: every aggregate keeps Flink's exact
-- DECIMAL types. SUM is DECIMAL(38, 2) (LogicalTypeMerging.findSumAggType), AVG
-- DECIMAL(38, 6) (findAvgAggType: the sum divided by the count, rounded HALF_UP to 6
-- decimals: 1.01 + 2.50 + 0.33 over 3 is 1.280000), MIN and MAX the column's own type.
--
-- The rows are inserted as Flink's INSERT casts a literal into DECIMAL(10, 2): 1.005 is
-- rounded HALF_UP to 1.01, 7 becomes 7.00, and 123456789.5 (9 integral digits where the
-- type holds 8) becomes NULL: COUNT(*) counts its row, COUNT(price) and the other aggregates
-- skip it. The two B prices of 12:05-12:10 sum past DECIMAL(10, 2) (199999999.98), within
-- the DECIMAL(38, 2) of SUM.
CREATE TABLE orders (
  item STRING,
  price DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' MINUTE
);
INSERT INTO orders VALUES
  ('A', 1.005, TIMESTAMP '2021-11-01 12:01:00'),
  ('A', 2.50, TIMESTAMP '2021-11-01 12:02:30'),
  ('B', 7, TIMESTAMP '2021-11-01 12:03:00'),
  ('A', 0.33, TIMESTAMP '2021-11-01 12:04:00'),
  ('A', 123456789.5, TIMESTAMP '2021-11-01 12:06:00'),
  ('B', 99999999.99, TIMESTAMP '2021-11-01 12:07:00'),
  ('B', 99999999.99, TIMESTAMP '2021-11-01 12:08:00'),
  ('A', 4.25, TIMESTAMP '2021-11-01 12:14:00');

SELECT window_start, window_end, item, COUNT(*) AS orders, COUNT(price) AS priced,
  SUM(price) AS total, AVG(price) AS avg_price, MIN(price) AS low, MAX(price) AS high
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end, item;
