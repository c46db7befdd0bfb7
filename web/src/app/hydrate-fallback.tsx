/** Shown while the first page's data loads. */
export function HydrateFallback() {
  return (
    <div className="hydrate-fallback" role="status">
      Loading…
    </div>
  );
}
