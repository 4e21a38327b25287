// What the extension logs of the graphs it sent the page: the page names a graph by its sequence
// number when it reports the graph's first frame and when its layout settled, and the log line
// says which note, at which depth, and how long the server and the page took. Pure, for the tests.

import type { WebviewMessage } from "./messages";

/** A graph sent to the page. */
export interface SentGraph {
  note: string;
  depth: number;
  askedAt: number; // Date.now() when it was asked for
  answeredIn: number; // ms the server took
}

type Frame = Extract<WebviewMessage, { type: "frame" }>;
type Settled = Extract<WebviewMessage, { type: "settled" }>;

const KEEP_SHOWN = 8; // graphs sent lately, for the page's replies about them

export class ShownGraphs {
  private seq = 0;
  // drawn: its first frame is logged (a page reloaded draws it again: not logged twice)
  private readonly shown = new Map<number, SentGraph & { drawn: boolean }>();

  /** Records a graph about to be sent; its sequence number goes with it. */
  add(graph: SentGraph): number {
    const seq = ++this.seq;
    this.shown.set(seq, { ...graph, drawn: false });
    this.shown.delete(seq - KEEP_SHOWN);
    return seq;
  }

  /** The line for a graph's first frame, once per graph; undefined for a graph not sent lately. */
  frame(message: Frame, now: number): string | undefined {
    const shown = this.shown.get(message.seq);
    if (!shown || shown.drawn) {
      return undefined;
    }
    shown.drawn = true;
    return (
      `graph of ${shown.note} at depth ${shown.depth}: ${message.nodes} nodes, ${message.edges} edges; ` +
      `answered in ${shown.answeredIn} ms, first frame drawn ${message.ms.toFixed(0)} ms after the answer reached the page ` +
      `(${now - shown.askedAt} ms after the question)`
    );
  }

  settled(message: Settled): string {
    const shown = this.shown.get(message.seq);
    return (
      `graph of ${shown?.note ?? "?"}: layout settled after ${message.ticks} ticks, ${message.ms.toFixed(0)} ms; ` +
      `slowest frame ${message.slowest.toFixed(0)} ms`
    );
  }
}
