-- WHERE conditions on the preserved (left) side of an interval LEFT JOIN are pushed below the join:
-- rows with v <= 15 or v = 30 never reach it, but still move the watermark of table a.
CREATE TABLE a (k INT, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t);
CREATE TABLE b (k INT, w STRING, t TIMESTAMP(3), WATERMARK FOR t AS t);
INSERT INTO a VALUES (1, 10, TIMESTAMP '2020-01-01 00:00:01'), (1, 20, TIMESTAMP '2020-01-01 00:00:05'), (2, 30, TIMESTAMP '2020-01-01 00:00:09');
INSERT INTO b VALUES (1, 'x', TIMESTAMP '2020-01-01 00:00:02'), (2, 'y', TIMESTAMP '2020-01-01 00:00:03');
SELECT a.k, a.v, b.w FROM a LEFT JOIN b ON a.k = b.k AND a.t BETWEEN b.t - INTERVAL '10' SECOND AND b.t + INTERVAL '10' SECOND
WHERE a.v > 15 AND a.v <> 30 OR a.k IS NULL;
