//! How a value lies in Redis: the fields of its hash, read in one `HMGET`, and the fields its
//! MAC covers. The read, the write and explain all go through these, so the three agree on the
//! layout; a field added here is one an older build ignores (it reads only the fields it knows).

use bytes::Bytes;

/// The fields of a stored entry, read first (`HMGET`): the entry names its version keys, which
/// [`CURRENT`](super::read::CURRENT) then declares; the last is the MAC over all the others.
pub(super) const ENTRY_FIELDS: [&str; 8] = [
    "meta", "body", "gzip", "brotli", "gen", "tagkeys", "tagvers", "mac",
];

/// An entry's [`ENTRY_FIELDS`]: meta, body, gzip and brotli (empty: no such variant), then the
/// route generation, the tag keys and their versions (newline-separated) it was stored under,
/// and its MAC; `None` where the field (or the entry) is missing.
pub(super) type StoredParts = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
);

/// [`StoredParts`], then who filled the value and when (absent when an older build wrote it).
pub(super) type InspectedParts = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
    Option<String>,
    Option<u64>,
);

/// The fields a value's MAC covers, in order: meta, body, gzip, brotli (empty when absent),
/// the route generation, the version keys and the versions recorded (newline-separated).
pub(super) fn signed_fields<'a>(
    (meta, body, gzip, brotli): (&'a [u8], &'a [u8], &'a [u8], &'a [u8]),
    generation: &'a str,
    version_keys: &'a str,
    versions: &'a str,
) -> [&'a [u8]; 7] {
    [
        meta,
        body,
        gzip,
        brotli,
        generation.as_bytes(),
        version_keys.as_bytes(),
        versions.as_bytes(),
    ]
}

/// A value read from L2: its meta, body, gzip and brotli (`None`: no such variant).
pub(in crate::cache) type Stored = (Vec<u8>, Bytes, Option<Bytes>, Option<Bytes>);
