// The built-in default (seed 000's window join), used only when
// scenarios/window-join-tumbling.json is not in the build.
export const DEFAULT_SCENARIO = {
  version: 1,
  title: 'Window join, tumbling 10 s (seed 000)',
  description:
    'clicks.join(orders).where(user).equalTo(user).window(TumblingEventTimeWindows.of(10 s)) with ' +
    'forBoundedOutOfOrderness(0) at parallelism 1. Rows with the same user in the same 10-second ' +
    'window are paired when the watermark passes the window end: 8 pairs. Bob ./home (15000) and ' +
    'Bob 20 (12000) meet in [10000, 20000); Cary and Mary never find a partner.',
  job: {
    operator: 'window_join',
    watermark: { strategy: 'bounded', delay: 0 },
    window: { kind: 'tumbling', size: '10s' },
  },
  streams: [
    {
      name: 'clicks',
      columns: ['user', 'url', 'ts'],
      key: 'user',
      time: 'ts',
      rows: 'Alice, ./home, 1000\nBob, ./cart, 2000\nAlice, ./cart, 3000\nAlice, ./fav, 8000\nBob, ./home, 15000\nCary, ./prod?id=1, 16000',
    },
    {
      name: 'orders',
      columns: ['user', 'n', 'ts'],
      key: 'user',
      time: 'ts',
      rows: 'Alice, 35, 2000\nBob, 20, 8000\nAlice, 17, 9000\nBob, 20, 12000\nMary, 50, 17000',
    },
  ],
};
