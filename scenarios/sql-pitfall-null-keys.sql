-- Pitfall: a NULL key never joins. `o.customer_id = c.customer_id` is not TRUE when either
-- side is NULL (it is UNKNOWN), so the join's condition drops the row from every match:
-- order o2, a guest checkout with no customer id, is emitted padded with NULLs at once and
-- stays that way, although the customers table holds a row whose customer_id is NULL too.
-- Order o3 arrives before customer 8: padded first, then retracted (-D) and joined (+I) when
-- Grace's row arrives. To match NULL to NULL, Flink SQL has `IS NOT DISTINCT FROM`.
--
-- A NULL in a VALUES row is written CAST(NULL AS type): a bare NULL has no type, which Flink's
-- validator rejects ("Illegal use of 'NULL'").
CREATE TABLE orders (
  order_id STRING,
  customer_id BIGINT,
  amount DOUBLE,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time
) WITH ('connector' = 'kafka');

CREATE TABLE customers (
  customer_id BIGINT,
  name STRING,
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time
) WITH ('connector' = 'kafka');

INSERT INTO orders VALUES
  ('o1', 7, 20.0, TIMESTAMP '2024-05-01 10:00:00'),
  ('o2', CAST(NULL AS BIGINT), 35.5, TIMESTAMP '2024-05-01 10:01:00'),
  ('o3', 8, 12.0, TIMESTAMP '2024-05-01 10:02:00');

INSERT INTO customers VALUES
  (7, 'Ada', TIMESTAMP '2024-05-01 09:59:00'),
  (CAST(NULL AS BIGINT), 'guest', TIMESTAMP '2024-05-01 10:00:30'),
  (8, 'Grace', TIMESTAMP '2024-05-01 10:03:00');

SELECT o.order_id, o.customer_id, o.amount, c.name
FROM orders AS o
LEFT JOIN customers AS c ON o.customer_id = c.customer_id;
