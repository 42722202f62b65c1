import type { ProxyContext } from '../proxy-context.js';
import type { AnswerPiece } from './answer-piece.js';

/**
 * One response stage, seeing the answer as Envoy's encoder filters see it: each piece as it comes (a whole answer is a
 * single piece), then the end of a stream. A stage refuses the answer by throwing a GatewayError: a whole answer is
 * then not relayed; a stream is cut with an error event. Built once at start from frozen config; its state for one
 * answer lives in the call's context.
 */
export interface ResponseStage {
  readonly name: string;
  onPiece(c: ProxyContext, piece: AnswerPiece): void;
  /** A stream ended: pieces to add (text a stage held back), which the stages after this one then see. */
  onStreamEnd?(c: ProxyContext): AnswerPiece[] | null;
}

/**
 * The response stages in the order they run (Envoy's encoder order: the reverse of their declaration), driven the same
 * way for a whole answer and for every event of a stream.
 */
export class ResponseStages {
  constructor(readonly stages: readonly ResponseStage[]) {}

  /** Runs one piece through the stages, from `from` on. */
  piece(c: ProxyContext, piece: AnswerPiece, from = 0): void {
    const stages = this.stages;
    for (let i = from; i < stages.length; i++) {
      (stages[i] as ResponseStage).onPiece(c, piece);
      if (piece.dropped) return;
    }
  }

  /** The end of a stream: what each stage still held, run through the stages after it, in order. */
  streamEnd(c: ProxyContext): AnswerPiece[] {
    const out: AnswerPiece[] = [];
    const stages = this.stages;
    for (let i = 0; i < stages.length; i++) {
      const added = (stages[i] as ResponseStage).onStreamEnd?.(c);
      if (!added) continue;
      for (const piece of added) {
        this.piece(c, piece, i + 1);
        if (!piece.dropped) out.push(piece);
      }
    }
    return out;
  }
}
