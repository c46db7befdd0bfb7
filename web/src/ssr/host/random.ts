/**
 * A STAND-IN for `crypto.getRandomValues`, on `Math.random`: NOT cryptographically random. The
 * server render's engine (QuickJS) has no source of secure randomness, and a render needs none:
 * the bundle's only readers are the trace context's ids (`traceparent` of the app's API calls)
 * and the idempotency keys of mutations. A render sends no request (its `fetch` is answered by
 * the BFF) and runs no mutation, and no id it draws is a secret or outlives the render. Nothing
 * that depends on unpredictable values may run in a server render; the browser has the real one.
 */
export function getRandomValuesStandIn<T extends ArrayBufferView | null>(array: T): T {
  if (array === null) return array;
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return array;
}
