/**
 * W3C trace context for the BFF calls: every `/api` request carries a new `traceparent`, so the
 * BFF's server span joins a trace the browser started (and a support ticket can quote it). No
 * OpenTelemetry SDK: the browser exports no spans, it only names the trace.
 *
 * The sampled flag is drawn at the BFF's own ratio (`telemetry.traceSampleRatio` of the runtime
 * config), so browser-started traces are sampled as the BFF samples its roots; until the config
 * is known nothing is marked sampled.
 */

// ArrayBuffer-backed: getRandomValues refuses views of a SharedArrayBuffer (TypeScript 6 says so).
type RandomFill = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array;

const cryptoFill: RandomFill = (bytes) => globalThis.crypto.getRandomValues(bytes);

let sampleRatio = 0;

/** Sets the share of traces marked sampled (from the runtime config), clamped to 0..1. */
export function setTraceSampleRatio(ratio: number): void {
  sampleRatio = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 0;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Random bytes that are not all zero (an all-zero id is invalid). */
function nonZero(length: number, fill: RandomFill): string {
  for (;;) {
    const bytes = fill(new Uint8Array(length));
    if (bytes.some((byte) => byte !== 0)) return hex(bytes);
  }
}

/** A new `traceparent`: version 00, a random trace id and span id, sampled at `ratio`. */
export function newTraceparent(ratio: number = sampleRatio, fill: RandomFill = cryptoFill): string {
  const draw = fill(new Uint8Array(4));
  const unit = new DataView(draw.buffer).getUint32(0) / 2 ** 32;
  const sampled = unit < ratio ? '01' : '00';
  return `00-${nonZero(16, fill)}-${nonZero(8, fill)}-${sampled}`;
}
