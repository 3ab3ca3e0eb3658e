-- The Flink documentation's event-time temporal join with its own types: `price DECIMAL(32,2)`
-- and `conversion_rate DECIMAL(32,2)`. Their product is exact: DECIMAL(38, 4), the type
-- LogicalTypeMerging.findMultiplicationDecimalType gives DECIMAL(32, 2) * DECIMAL(32, 2) (65
-- digits adjusted to 38, keeping 4 of scale), printed with every digit of its scale (12.6654,
-- 30.0000). A DOUBLE column would print 12.665399999999998 for 11.11 * 1.14.
--
-- Each order joins the rate valid at its own order_time once both watermarks pass it; the USD
-- order of 11:40 finds no USD version at or before its time and the LEFT JOIN pads it with
-- NULLs. The rate of 12:02 arrives late (behind the rates watermark) and still becomes a
-- version: o_002 (12:03) joins it.
--
-- `-- +U a=…` after a row: its changelog kind and its arrival (processing) time. Flink reads
-- them as comments; the rows of each table arrive in the order written.
CREATE TABLE orders (
  order_id STRING,
  price DECIMAL(32, 2),
  currency STRING,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE currency_rates (
  currency STRING,
  conversion_rate DECIMAL(32, 2),
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'kafka', 'topic' = 'rates', 'format' = 'debezium-json');

INSERT INTO currency_rates VALUES
  ('EUR', 1.14, TIMESTAMP '2021-06-01 11:50:00'), -- a=2021-06-01T11:50:00
  ('USD', 1.00, TIMESTAMP '2021-06-01 11:55:00'), -- a=2021-06-01T11:55:00
  ('EUR', 1.10, TIMESTAMP '2021-06-01 12:05:00'), -- +U a=2021-06-01T12:05:00
  ('EUR', 1.12, TIMESTAMP '2021-06-01 12:02:00'), -- +U a=2021-06-01T12:05:30
  ('USD', 1.01, TIMESTAMP '2021-06-01 12:09:00'); -- +U a=2021-06-01T12:09:00

INSERT INTO orders VALUES
  ('o_000', 20.00, 'USD', TIMESTAMP '2021-06-01 11:40:00'), -- a=2021-06-01T11:56:00
  ('o_001', 11.11, 'EUR', TIMESTAMP '2021-06-01 12:01:00'), -- a=2021-06-01T12:01:00
  ('o_002', 12.51, 'EUR', TIMESTAMP '2021-06-01 12:03:00'), -- a=2021-06-01T12:03:00
  ('o_003', 30, 'EUR', TIMESTAMP '2021-06-01 12:06:00'), -- a=2021-06-01T12:06:00
  ('o_004', 8.005, 'USD', TIMESTAMP '2021-06-01 12:08:00'); -- a=2021-06-01T12:08:00

SELECT
  o.order_id,
  o.price,
  o.currency,
  r.conversion_rate,
  o.price * r.conversion_rate AS converted,
  o.order_time
FROM orders AS o
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency;
