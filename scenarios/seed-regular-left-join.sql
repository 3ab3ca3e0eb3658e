-- Seed 001: the same logs through a regular LEFT JOIN. A show that arrives before its
-- click is emitted at once as (show, null), then retracted (-D) and re-emitted joined (+I)
-- when the click arrives: a retract stream. Click 2 arrives at 00:03:10, after show 2
-- (the comment after the row gives its arrival time).
CREATE TABLE show_log (
  log_id BIGINT,
  row_time TIMESTAMP(3),
  show_params STRING,
  WATERMARK FOR row_time AS row_time
) WITH ('connector' = 'kafka');

CREATE TABLE click_log (
  log_id BIGINT,
  row_time TIMESTAMP(3),
  click_params STRING,
  WATERMARK FOR row_time AS row_time
) WITH ('connector' = 'kafka');

INSERT INTO show_log VALUES
  (1, TIMESTAMP '2021-11-01 00:01:03', 'show_params'),
  (2, TIMESTAMP '2021-11-01 00:03:00', 'show_params2'),
  (3, TIMESTAMP '2021-11-01 00:05:00', 'show_params3');

INSERT INTO click_log VALUES
  (1, TIMESTAMP '2021-11-01 00:01:53', 'click_params'),
  (2, TIMESTAMP '2021-11-01 00:02:01', 'click_params2'); -- a=2021-11-01T00:03:10

INSERT INTO sink_table
SELECT
  show_log.log_id AS log_id,
  show_log.row_time AS `timestamp`,
  show_log.show_params AS show_params,
  click_log.click_params AS click_params
FROM show_log
LEFT JOIN click_log ON show_log.log_id = click_log.log_id;
