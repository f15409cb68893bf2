//! What the benchmark binaries share.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// An HTTP client for the benchmarks (built as the service builds its own).
pub fn http_client() -> reqwest::Client {
    presspack::infra::fetch::http_client_builder()
        .build()
        .expect("an HTTP client")
}

/// Sends `request` and reads its reply as JSON.
pub async fn json_reply(request: reqwest::RequestBuilder) -> serde_json::Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// uploadImage of `bytes`; returns the basket item.
pub async fn upload(endpoint: &str, bytes: Vec<u8>) -> serde_json::Value {
    let form = reqwest::multipart::Form::new()
        .text("method", "svc.image.uploadImage")
        .part(
            "imageFile",
            reqwest::multipart::Part::bytes(bytes).file_name("photo.jpg"),
        );
    let response = json_reply(http_client().post(endpoint).multipart(form)).await;
    let item = &response["imageBasketItem"]["items"][0];
    assert!(item.is_object(), "upload failed: {response}");
    item.clone()
}

/// A server process, killed when dropped.
pub struct Server {
    pub child: Child,
    pub address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and reads the address from its start-up line (`... listening on
/// http://ADDR ...`), after any log lines printed before it.
pub fn start(mut command: Command) -> Server {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let line = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| line.unwrap())
        .find(|line| line.contains(" listening on http://"))
        .expect("the server printed no start-up line");
    let address = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    Server { child, address }
}

pub fn presspack_binary() -> PathBuf {
    let path = std::env::current_exe().unwrap().with_file_name("presspack");
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build --release -p presspack`",
        path.display()
    );
    path
}
