-- SELECT * of a window anti join (NOT EXISTS) on HOP windows: each click of a user who bought
-- nothing in the same window comes out once per window, with the left table's columns and
-- the window columns window_start, window_end and window_time (its rowtime, window_end - 1 ms).
-- Real Flink gives this result only through executeSql(query).collect(), as its SQL client
-- shows it: toChangelogStream rejects a result with two rowtime columns (ts and window_time).
-- The click of dave at 00:00:03 arrives after the watermark passed 00:00:10.999: both its
-- windows have fired, and both copies are dropped as late.
CREATE TABLE clicks (
  user_id STRING,
  page STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND(1, 3)
);
INSERT INTO clicks VALUES
  ('alice', 'home', TIMESTAMP '1970-01-01 00:00:01'),
  ('bob', 'cart', TIMESTAMP '1970-01-01 00:00:02'),
  ('alice', 'shoes', TIMESTAMP '1970-01-01 00:00:06'),
  ('carol', 'home', TIMESTAMP '1970-01-01 00:00:07'),
  ('bob', 'home', TIMESTAMP '1970-01-01 00:00:12'),
  ('dave', 'sale', TIMESTAMP '1970-01-01 00:00:03') -- a=1970-01-01T00:00:13
;

CREATE TABLE buys (
  user_id STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND(1, 3)
);
INSERT INTO buys VALUES
  ('alice', 30, TIMESTAMP '1970-01-01 00:00:04'),
  ('alice', 12, TIMESTAMP '1970-01-01 00:00:08'),
  ('carol', 5, TIMESTAMP '1970-01-01 00:00:11'),
  ('dave', 7, TIMESTAMP '1970-01-01 00:00:14');

SELECT *
FROM (SELECT * FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) AS L
WHERE NOT EXISTS (
  SELECT * FROM (SELECT * FROM TABLE(HOP(TABLE buys, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) AS R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND L.user_id = R.user_id);
