//! Map tiles for the dealer map: every `/3p/tiles/{z}/{x}/{y}.png` is a generated 256×256 PNG,
//! plain land with a one-pixel grid line on its top and left edges, alternating shade like a
//! chequerboard so panning is visible. A tiny PNG encoder (two-colour palette, zlib "stored"
//! blocks, CRC-32 and Adler-32 computed here) keeps the sandbox free of image dependencies.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Tile edge in pixels, as web maps use.
pub const TILE_SIZE: u32 = 256;

/// The deepest zoom level served (OpenStreetMap's standard layer stops at 19).
const MAX_ZOOM: u32 = 22;

/// `GET /3p/tiles/{z}/{x}/{y}.png`
pub async fn tile(Path((z, x, file)): Path<(u32, u32, String)>) -> Response {
    let Some(y) = file
        .strip_suffix(".png")
        .and_then(|y| y.parse::<u32>().ok())
    else {
        return (StatusCode::NOT_FOUND, "tiles are /{z}/{x}/{y}.png").into_response();
    };
    if z > MAX_ZOOM || u64::from(x) >= 1 << z || u64::from(y) >= 1 << z {
        return (StatusCode::NOT_FOUND, "no such tile").into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        tile_png((x + y) % 2 == 1),
    )
        .into_response()
}

/// The tile image; `alternate` picks the second land shade.
pub fn tile_png(alternate: bool) -> Vec<u8> {
    let land = if alternate {
        [0xe9, 0xe7, 0xe3]
    } else {
        [0xe3, 0xe1, 0xdc]
    };
    let grid = [0xc4, 0xc1, 0xba];
    encode_two_colour(TILE_SIZE, TILE_SIZE, [land, grid], |x, y| x == 0 || y == 0)
}

/// A PNG of `width`×`height` whose pixels are `palette[1]` where `ink(x, y)` and `palette[0]`
/// elsewhere (colour type 3, bit depth 1).
pub fn encode_two_colour(
    width: u32,
    height: u32,
    palette: [[u8; 3]; 2],
    ink: impl Fn(u32, u32) -> bool,
) -> Vec<u8> {
    let row_bytes = width.div_ceil(8) as usize;
    let mut raw = Vec::with_capacity((row_bytes + 1) * height as usize);
    for y in 0..height {
        raw.push(0); // filter type: none
        let mut row = vec![0u8; row_bytes];
        for x in 0..width {
            if ink(x, y) {
                row[(x / 8) as usize] |= 0x80 >> (x % 8);
            }
        }
        raw.extend_from_slice(&row);
    }

    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // bit depth 1, colour type 3 (palette), deflate, adaptive filtering, no interlace
    ihdr.extend_from_slice(&[1, 3, 0, 0, 0]);

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    write_chunk(&mut png, b"IHDR", &ihdr);
    write_chunk(&mut png, b"PLTE", palette.as_flattened());
    write_chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    write_chunk(&mut png, b"IEND", &[]);
    png
}

fn write_chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    png.extend_from_slice(&len.to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of uncompressed ("stored") deflate blocks, at most 65 535 bytes each.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 0xffff;
    let mut out = vec![0x78, 0x01]; // deflate, 32K window, no preset dictionary, check bits
    let mut blocks = data.chunks(MAX_BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let last = blocks.peek().is_none();
        out.push(u8::from(last)); // BFINAL, BTYPE = 00 (stored)
        let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// CRC-32 (ISO-HDLC, as PNG uses), bit by bit: tiles are small and cached by browsers.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % MOD;
        b = (b + a) % MOD;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_known_values() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    /// Walks the chunks, checking every CRC, and inflates the stored blocks.
    fn decode(png: &[u8]) -> (Vec<u8>, Vec<u8>) {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let (mut ihdr, mut idat) = (Vec::new(), Vec::new());
        let mut kinds = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let kind = &png[at + 4..at + 8];
            let data = &png[at + 8..at + 8 + len];
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(&png[at + 4..at + 8 + len]));
            match kind {
                b"IHDR" => ihdr = data.to_vec(),
                b"IDAT" => idat.extend_from_slice(data),
                _ => {}
            }
            kinds.push(String::from_utf8(kind.to_vec()).unwrap());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "PLTE", "IDAT", "IEND"]);
        assert_eq!(&idat[..2], &[0x78, 0x01]);
        assert_eq!(u16::from_be_bytes([idat[0], idat[1]]) % 31, 0);
        let mut raw = Vec::new();
        let mut at = 2;
        loop {
            let last = idat[at] & 1 == 1;
            let len = u16::from_le_bytes([idat[at + 1], idat[at + 2]]);
            let nlen = u16::from_le_bytes([idat[at + 3], idat[at + 4]]);
            assert_eq!(len, !nlen);
            raw.extend_from_slice(&idat[at + 5..at + 5 + len as usize]);
            at += 5 + len as usize;
            if last {
                break;
            }
        }
        assert_eq!(&idat[at..], adler32(&raw).to_be_bytes());
        (ihdr, raw)
    }

    #[test]
    fn tiles_are_valid_256_pixel_pngs_with_a_grid_edge() {
        let (ihdr, raw) = decode(&tile_png(false));
        assert_eq!(&ihdr[..8], &[0, 0, 1, 0, 0, 0, 1, 0]);
        assert_eq!(&ihdr[8..], &[1, 3, 0, 0, 0]);
        assert_eq!(raw.len(), 256 * (1 + 32));
        assert!(
            raw[1..33].iter().all(|&byte| byte == 0xff),
            "top row is grid"
        );
        assert_eq!(&raw[33..35], &[0, 0x80], "then only the left pixel");
        assert_ne!(tile_png(false), tile_png(true));
    }

    #[test]
    fn large_images_span_several_stored_blocks() {
        let (_, raw) = decode(&encode_two_colour(1024, 600, [[0; 3], [255; 3]], |x, y| {
            (x + y) % 3 == 0
        }));
        assert_eq!(raw.len(), 600 * (1 + 128));
        assert!(raw.len() > 0xffff);
    }
}
