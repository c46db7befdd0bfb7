//! The embedded US ZIP code → centre table: `bff/data/zip-centroids.csv.gz`, public-domain
//! Census ZCTA Gazetteer points (source, licence and how to regenerate it in
//! `bff/data/ZIP-CENTROIDS.md`). Compiled into the binary and decoded once, on first use.

use std::io::Read;
use std::sync::LazyLock;

use super::LatLng;

static EMBEDDED_GZIP_CSV: &[u8] = include_bytes!("../../../data/zip-centroids.csv.gz");

/// Decoded on the first lookup (a few milliseconds), then shared by every request.
static EMBEDDED: LazyLock<Result<ZipCentroids, ZipTableError>> =
    LazyLock::new(|| ZipCentroids::from_gzip_csv(EMBEDDED_GZIP_CSV));

const HEADER: &str = "zip,lat,lng";

/// A US ZIP code: exactly five ASCII digits (leading zeros kept: `02108` is Boston).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ZipCode(String);

impl ZipCode {
    pub fn parse(value: &str) -> Option<Self> {
        (value.len() == 5 && value.bytes().all(|b| b.is_ascii_digit()))
            .then(|| Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The table's key: the digits as a number (five digits always fit).
    fn key(&self) -> u32 {
        self.0
            .bytes()
            .fold(0, |key, digit| key * 10 + u32::from(digit - b'0'))
    }
}

/// Why the table did not load; `line` is 1-based, 0 for the file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ZIP centroid table, line {line}: {reason}")]
pub struct ZipTableError {
    pub line: usize,
    pub reason: String,
}

/// ZIP code → centre, for lookups by binary search.
#[derive(Debug)]
pub struct ZipCentroids {
    /// Sorted by key, keys unique. A sorted `Vec` rather than a `HashMap`: about 0.7 MB for the
    /// 33,791 rows, no per-entry allocation, and lookups are a handful of comparisons.
    rows: Vec<(u32, LatLng)>,
}

impl ZipCentroids {
    /// The table compiled into the binary. An error here means the embedded file is broken (the
    /// unit tests load it, so a broken file fails the build's tests first).
    pub fn embedded() -> Result<&'static Self, &'static ZipTableError> {
        EMBEDDED.as_ref()
    }

    pub fn from_gzip_csv(compressed: &[u8]) -> Result<Self, ZipTableError> {
        let mut text = String::new();
        flate2::read::GzDecoder::new(compressed)
            .read_to_string(&mut text)
            .map_err(|err| ZipTableError {
                line: 0,
                reason: format!("not gzip'd UTF-8 text ({err})"),
            })?;
        Self::from_csv(&text)
    }

    /// Parses `zip,lat,lng` lines after that exact header. Simple enough to need no CSV crate:
    /// no quoting, three fields, numbers only.
    pub fn from_csv(text: &str) -> Result<Self, ZipTableError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(index, line)| (index + 1, line));
        match lines.next() {
            Some((_, header)) if header.trim_end() == HEADER => {}
            _ => {
                return Err(ZipTableError {
                    line: 1,
                    reason: format!("the header must be '{HEADER}'"),
                });
            }
        }
        let mut rows = Vec::with_capacity(text.len() / 26);
        for (line, content) in lines.filter(|(_, content)| !content.trim().is_empty()) {
            let error = |reason: String| ZipTableError { line, reason };
            let fields: Vec<&str> = content.trim_end().split(',').collect();
            let [zip, lat, lng] = fields[..] else {
                return Err(error(format!("expected 3 fields, found {}", fields.len())));
            };
            let zip = ZipCode::parse(zip)
                .ok_or_else(|| error(format!("'{zip}' is not a 5-digit zip")))?;
            let point = lat
                .parse()
                .ok()
                .zip(lng.parse().ok())
                .and_then(|(lat, lng)| LatLng::new(lat, lng))
                .ok_or_else(|| error(format!("'{lat},{lng}' is not a latitude and longitude")))?;
            rows.push((zip.key(), point));
        }
        rows.sort_by_key(|(key, _)| *key);
        if let Some(pair) = rows.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(ZipTableError {
                line: 0,
                reason: format!("zip {:05} appears more than once", pair[0].0),
            });
        }
        Ok(Self { rows })
    }

    /// The zip's centre, or `None` when the zip is not in the table.
    pub fn centroid(&self, zip: &ZipCode) -> Option<LatLng> {
        let key = zip.key();
        self.rows
            .binary_search_by_key(&key, |(row_key, _)| *row_key)
            .ok()
            .map(|index| self.rows[index].1)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::geo::miles_between;

    fn zip(value: &str) -> ZipCode {
        ZipCode::parse(value).unwrap_or_else(|| panic!("{value} is a zip"))
    }

    fn embedded() -> &'static ZipCentroids {
        ZipCentroids::embedded().unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn a_zip_is_exactly_five_ascii_digits() {
        assert_eq!(ZipCode::parse("02108").map(|z| z.key()), Some(2108));
        for bad in [
            "",
            "7870",
            "787011",
            "7870a",
            "abcde",
            " 78701",
            "78701 ",
            "７８７０１",
            "-7870",
        ] {
            assert_eq!(ZipCode::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_embedded_table_holds_every_2021_zcta() {
        assert_eq!(embedded().len(), 33_791);
    }

    #[test]
    fn known_zips_have_their_census_points() {
        let table = embedded();
        let austin = table
            .centroid(&zip("78701"))
            .unwrap_or_else(|| panic!("78701"));
        assert!((austin.lat - 30.2706).abs() < 1e-3 && (austin.lng + 97.7426).abs() < 1e-3);
        // Leading zeros: Puerto Rico's first ZCTA and Manchester, NH.
        assert!(table.centroid(&zip("00601")).is_some());
        let manchester = table
            .centroid(&zip("03101"))
            .unwrap_or_else(|| panic!("03101"));
        assert!((manchester.lat - 42.99).abs() < 0.01 && (manchester.lng + 71.466).abs() < 0.01);
    }

    #[test]
    fn zips_that_are_not_zctas_are_unknown() {
        let table = embedded();
        assert_eq!(table.centroid(&zip("00000")), None);
        assert_eq!(table.centroid(&zip("99999")), None);
    }

    #[test]
    fn austin_to_dallas_is_about_182_miles() {
        let table = embedded();
        let austin = table
            .centroid(&zip("78701"))
            .unwrap_or_else(|| panic!("78701"));
        let dallas = table
            .centroid(&zip("75201"))
            .unwrap_or_else(|| panic!("75201"));
        let miles = miles_between(austin, dallas);
        assert!((miles - 182.0).abs() < 3.0, "{miles}");
    }

    #[test]
    fn a_small_table_parses_and_sorts() {
        let table =
            ZipCentroids::from_csv("zip,lat,lng\n78701,30.27,-97.74\n02108,42.36,-71.06\n\n")
                .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.centroid(&zip("02108")),
            Some(LatLng {
                lat: 42.36,
                lng: -71.06
            })
        );
    }

    #[test]
    fn a_broken_table_names_the_line() {
        let cases = [
            ("lat,lng,zip\n", 1),
            ("zip,lat,lng\n78701,30.27\n", 2),
            ("zip,lat,lng\n78701,30.27,-97.74\n7870,30.27,-97.74\n", 3),
            ("zip,lat,lng\n78701,north,-97.74\n", 2),
            ("zip,lat,lng\n78701,95.0,-97.74\n", 2),
            ("zip,lat,lng\n78701,30.27,-97.74\n78701,30.27,-97.74\n", 0),
        ];
        for (text, line) in cases {
            let err = ZipCentroids::from_csv(text).err();
            assert_eq!(err.map(|err| err.line), Some(line), "{text:?}");
        }
        assert_eq!(
            ZipCentroids::from_gzip_csv(b"not gzip")
                .err()
                .map(|e| e.line),
            Some(0)
        );
    }
}
