import { parentPort } from 'node:worker_threads';

// A ledger writer thread that opens, then fails at the first write handed to it (as a bug or an exhausted heap
// would): what the request thread does then is the test.
parentPort!.postMessage({ ready: true, anchor: null });
parentPort!.once('message', () => {
  throw new Error('the writer broke');
});
