//! The page and its scripts, built into the binary: `page/` beside this
//! file holds what `studio/` at the root of the repository builds to
//! (`scripts/studio build`; the bundle is committed, so that `cargo build`
//! alone gives a working studio, and `scripts/studio check` proves it is
//! what the sources build to). Nothing is fetched from the network.

/// The files of the page: path, content type, bytes.
const FILES: [(&str, &str, &[u8]); 3] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_bytes!("page/index.html"),
    ),
    (
        "/studio.js",
        "text/javascript; charset=utf-8",
        include_bytes!("page/studio.js"),
    ),
    (
        "/studio.css",
        "text/css; charset=utf-8",
        include_bytes!("page/studio.css"),
    ),
];

/// The content type and bytes of the page's file at `path`.
pub fn find(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|&(_, content_type, bytes)| (content_type, bytes))
}
