//! Fuzz target for the language server: any bytes as an open document,
//! asked every question `gdl lsp` answers (see `gdl_cli::fuzz::lsp_document`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gdl_cli::fuzz::lsp_document(data));
