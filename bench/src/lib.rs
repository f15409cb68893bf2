//! What the benchmark binaries share.

/// uploadImage of `bytes`; returns the basket item.
pub async fn upload(endpoint: &str, bytes: Vec<u8>) -> serde_json::Value {
    let form = reqwest::multipart::Form::new()
        .text("method", "svc.image.uploadImage")
        .part(
            "imageFile",
            reqwest::multipart::Part::bytes(bytes).file_name("photo.jpg"),
        );
    let response: serde_json::Value = reqwest::Client::new()
        .post(endpoint)
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let item = &response["imageBasketItem"]["items"][0];
    assert!(item.is_object(), "upload failed: {response}");
    item.clone()
}
