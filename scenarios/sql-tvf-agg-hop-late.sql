-- HOP windows of 10 minutes every 5 minutes: each order is counted in two windows. The order at
-- 12:03 arrives after the watermark (12:12, from 12:13 - 1 minute) has passed the end of both its windows
-- (12:05 and 12:10): Flink's window aggregate drops it, and no window counts it.
CREATE TABLE orders (
  `user` STRING,
  amount INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' MINUTE
);
INSERT INTO orders VALUES
  ('alice', 12, TIMESTAMP '2021-11-01 12:01:00'),
  ('bob', 5, TIMESTAMP '2021-11-01 12:02:30'),
  ('alice', 7, TIMESTAMP '2021-11-01 12:06:00'),
  ('bob', 3, TIMESTAMP '2021-11-01 12:13:00'),
  ('alice', 4, TIMESTAMP '2021-11-01 12:03:00'),
  ('alice', 9, TIMESTAMP '2021-11-01 12:14:00');

SELECT window_start, window_end, `user`, COUNT(*) AS orders, SUM(amount) AS total
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, `user`;
