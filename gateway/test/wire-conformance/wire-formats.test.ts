import { describeWireFormats } from './describe-wire-format.js';

// Every wire format the proxy speaks runs the same contract (describe-wire-format.ts), on the gateway's port.
describeWireFormats({});
