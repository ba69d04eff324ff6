//! Fuzz target for `gdl player`'s requests: the bytes a client sends, served by the server's own code for a connection, the messages read as the player reads them (see `gdl_cli::fuzz::player_request`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gdl_cli::fuzz::player_request(data);
});
