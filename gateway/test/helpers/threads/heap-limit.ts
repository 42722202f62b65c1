import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';

/** A worker that answers its V8 heap's limit, bytes (old generation and young together). */
parentPort?.postMessage(getHeapStatistics().heap_size_limit);
