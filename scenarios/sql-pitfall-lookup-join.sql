-- Pitfall: FOR SYSTEM_TIME AS OF a processing-time attribute is a lookup join, not an
-- event-time temporal join. Each order looks its currency up once, when it arrives, in the
-- table as it stands at that moment: the order's own time plays no part, nothing waits for a
-- watermark, nothing is kept in state, and a later change of the table never corrects a result.
--
-- o_001 (ordered 11:59, arrives 12:00:30) gets 1.10, the rate of 12:00, although it was
-- ordered before that rate existed. o_002 (USD) arrives at 12:03:10, before the USD row
-- (12:03:30): NULL, and it stays NULL. o_003 arrives at 12:05:10, 20 s before the 12:05 EUR
-- rate reaches the table: 1.10. o_004 gets 1.12.
-- Written FOR SYSTEM_TIME AS OF o.order_time against a versioned table (a primary key and a
-- watermark on both tables), the same rows give NULL, 0.91, 1.12, 1.12: see the gallery's
-- pitfall-lookup-vs-temporal-*.json pair.
--
-- `-- a=…` after a row: its arrival (processing) time. Flink reads it as a comment.
CREATE TABLE orders (
  order_id STRING,
  currency STRING,
  amount DOUBLE,
  order_time TIMESTAMP(3),
  proc_time AS PROCTIME()
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'format' = 'json');

-- The lookup table: Flink queries it (e.g. JDBC) when an order arrives.
CREATE TABLE rates (
  currency STRING,
  rate DOUBLE,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db:3306/fx', 'table-name' = 'rates');

INSERT INTO rates VALUES
  ('EUR', 1.10), -- a=1970-01-01T12:00:00
  ('USD', 0.91), -- a=1970-01-01T12:03:30
  ('EUR', 1.12); -- a=1970-01-01T12:05:30

INSERT INTO orders VALUES
  ('o_001', 'EUR', 100.0, TIMESTAMP '1970-01-01 11:59:00'), -- a=1970-01-01T12:00:30
  ('o_002', 'USD', 40.0, TIMESTAMP '1970-01-01 12:03:00'), -- a=1970-01-01T12:03:10
  ('o_003', 'EUR', 50.0, TIMESTAMP '1970-01-01 12:05:10'), -- a=1970-01-01T12:05:10
  ('o_004', 'EUR', 70.0, TIMESTAMP '1970-01-01 12:08:00'); -- a=1970-01-01T12:08:00

SELECT o.order_id, o.currency, o.amount, r.rate, o.amount * r.rate AS converted
FROM orders AS o
LEFT JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r
  ON o.currency = r.currency;
