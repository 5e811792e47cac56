// server.cjs: a boardgame.io 0.50 server of tests/bench/bgio/hanabi.cjs for
// BENCH=bgio: `node server.cjs PORT [DIR]`, in memory (its default
// storage), or with DIR its file storage (FlatFile, node-persist) there.
// PORT 0: a free one. Prints "listening on PORT" (the port it took) when it
// takes connections.
const { Server, FlatFile } = require('boardgame.io/server');
const { Hanabi } = require('./hanabi.cjs');

const [port, dir] = process.argv.slice(2);
const db = dir ? new FlatFile({ dir, logging: false }) : undefined;
const server = Server({ games: [Hanabi], db, origins: ['http://127.0.0.1'] });
server.run({ port: Number(port) }).then(({ appServer }) => console.log(`listening on ${appServer.address().port}`));
