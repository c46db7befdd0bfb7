//! What the shared tier holds at a key, for explain: the value, whether a read would serve it,
//! its size, its time to live and who wrote it. Read only: an outdated value is reported, not
//! dropped, and a failed MAC is checked, not counted.

use bytes::Bytes;

use super::tier::SharedTier;
use super::wire::{ENTRY_FIELDS, InspectedParts, Stored, signed_fields};
use crate::cache::policy::RouteKind;

/// What L2 holds at a key, for explain.
#[derive(Debug, Default)]
pub(in crate::cache) struct Inspected {
    /// The value (meta, body, gzip, brotli), if any.
    pub value: Option<Stored>,
    /// Whether its recorded versions all hold and its MAC does (a read would serve it).
    pub current: bool,
    pub size_bytes: u64,
    /// Until Redis drops it (its last stale window's end).
    pub ttl_ms: Option<u64>,
    /// The replica that wrote it; `None` for a value an older build wrote.
    pub filled_by: Option<String>,
    pub filled_at_unix_ms: Option<u64>,
}

impl SharedTier {
    /// What L2 holds at `key`, for explain: read only (an outdated value is reported, not
    /// dropped). `None` when Redis did not answer.
    pub(in crate::cache) async fn inspect(&self, key: &str, route: RouteKind) -> Option<Inspected> {
        let entry_key = self.entry_key(key);
        let mut fields = redis::cmd("HMGET");
        fields
            .arg(&entry_key)
            .arg(&ENTRY_FIELDS[..])
            .arg("filler")
            .arg("filled");
        let (meta, body, gzip, brotli, generation, tag_keys, tag_versions, mac, filler, filled): InspectedParts =
            self.redis.query("cache_l2_explain", &fields).await.ok()?;
        let (Some(meta), Some(generation)) = (meta, generation) else {
            return Some(Inspected::default());
        };
        let ttl_ms: i64 = self
            .redis
            .query("cache_l2_explain", redis::cmd("PTTL").arg(&entry_key))
            .await
            .ok()?;
        // the recorded versions against the current ones, without the read path's cleanup
        let tag_keys = tag_keys.unwrap_or_default();
        let mut version_keys = vec![self.route_generation_key(route)];
        version_keys.extend(tag_keys.lines().map(str::to_owned));
        let current: Vec<Option<String>> = self
            .redis
            .query("cache_l2_explain", redis::cmd("MGET").arg(&version_keys))
            .await
            .ok()?;
        let tag_versions = tag_versions.unwrap_or_default();
        let recorded = std::iter::once(generation.as_str()).chain(tag_versions.lines());
        let versions_hold = current
            .into_iter()
            .zip(recorded)
            .all(|(now, then)| now.as_deref().unwrap_or("0") == then);
        // checked, not counted: explain only looks
        fn bytes(field: &Option<Vec<u8>>) -> &[u8] {
            field.as_deref().unwrap_or_default()
        }
        let bodies = (meta.as_slice(), bytes(&body), bytes(&gzip), bytes(&brotli));
        let signed = signed_fields(bodies, &generation, &tag_keys, &tag_versions);
        let mac_holds = mac.is_some_and(|mac| self.mac.verify(&entry_key, &signed, &mac));
        let size = |bytes: &Option<Vec<u8>>| bytes.as_ref().map_or(0, Vec::len);
        let variant =
            |bytes: Option<Vec<u8>>| bytes.filter(|bytes| !bytes.is_empty()).map(Bytes::from);
        let size_bytes = meta.len() + size(&body) + size(&gzip) + size(&brotli);
        Some(Inspected {
            value: Some((
                meta,
                Bytes::from(body.unwrap_or_default()),
                variant(gzip),
                variant(brotli),
            )),
            current: versions_hold && mac_holds,
            size_bytes: u64::try_from(size_bytes).unwrap_or(u64::MAX),
            ttl_ms: u64::try_from(ttl_ms).ok(),
            filled_by: filler.filter(|filler| !filler.is_empty()),
            filled_at_unix_ms: filled,
        })
    }
}
