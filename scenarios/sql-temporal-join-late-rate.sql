-- Event-time temporal join (the Flink documentation's orders / currency_rates), with a rate
-- that arrives late. Each order joins the rate valid at its own order_time, and only once the
-- watermarks of both tables have passed that time (TemporalRowTimeJoinOperator keeps the order
-- in state with an event-time timer until then).
--
-- o_001 (12:01) is released when the watermark passes 12:01 and joins the 11:50 rate (1.14).
-- At 12:05:30 a EUR rate stamped 12:02 arrives: behind the rates watermark (12:04:55), yet
-- Flink 2.3.0 does not drop it. It becomes the version valid from 12:02 to 12:05, and o_002
-- (12:03), still waiting for the watermark, joins it (1.12). o_001 keeps 1.14: a temporal
-- join's results are final, nothing is retracted. o_003 (12:06) joins the 12:05 rate (1.10);
-- the USD order of 11:40 finds no USD version at or before its time, and the LEFT JOIN pads
-- it with NULLs.
--
-- `-- +U a=…` after a row: its changelog kind and its arrival (processing) time. Flink reads
-- them as comments; the rows of each table arrive in the order written.
CREATE TABLE orders (
  order_id STRING,
  price DOUBLE,
  currency STRING,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

CREATE TABLE currency_rates (
  currency STRING,
  conversion_rate DOUBLE,
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
  ('o_003', 30.00, 'EUR', TIMESTAMP '2021-06-01 12:06:00'), -- a=2021-06-01T12:06:00
  ('o_004', 8.00, 'USD', TIMESTAMP '2021-06-01 12:08:00'); -- a=2021-06-01T12:08:00

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
