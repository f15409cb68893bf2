//! getPhysicalSpec, updatePhysicalSpec, and physicalSpec on createPack (wire-formats 4).

use serde_json::json;

use crate::every_store;
use crate::helpers::{StoreKind, spawn_app};

every_store!(
    a_new_pack_gets_the_first_option_of_each_row,
    create_pack_takes_a_physical_spec,
    update_physical_spec_changes_only_the_given_fields,
    values_outside_the_table_are_errors_naming_field_and_allowed_values,
    concurrent_updates_lose_no_write,
);

async fn a_new_pack_gets_the_first_option_of_each_row(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (product, paper, finishing, size) in [
        ("businesscard", "classic", "square_corners", 50),
        ("minicard", "classic", "standard", 100),
        ("postcard", "classic", "standard", 20),
        ("sticker", "classic", "standard", 90),
    ] {
        let body = app
            .create_pack(product, &[("includePhysicalSpec", "true")])
            .await;
        assert_eq!(
            body["physicalSpec"],
            json!({"productType": product, "paperClass": paper, "finishingOption": finishing,
                   "packSize": size, "paperLaminate": "nolam"})
        );
        let id = body["packId"].as_str().unwrap();
        let spec = app
            .get(&[("method", "svc.pack.getPhysicalSpec"), ("packId", id)])
            .await
            .ok();
        assert_eq!(
            spec,
            json!({"packId": id, "physicalSpec": body["physicalSpec"]})
        );
    }
}

async fn create_pack_takes_a_physical_spec(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let body = app
        .create_pack(
            "businesscard",
            &[
                (
                    "physicalSpec",
                    r#"{"paperClass":"green","finishingOption":"rounded_corners","packSize":200}"#,
                ),
                ("includePhysicalSpec", "true"),
            ],
        )
        .await;
    assert_eq!(
        body["physicalSpec"],
        json!({"productType": "businesscard", "paperClass": "green", "finishingOption": "rounded_corners",
               "packSize": 200, "paperLaminate": "nolam"})
    );
}

async fn update_physical_spec_changes_only_the_given_fields(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = app.create_pack("businesscard", &[]).await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let update = |spec: &'static str| {
        let (app, id) = (&app, id.clone());
        async move {
            app.post(&[
                ("method", "svc.pack.updatePhysicalSpec"),
                ("packId", &id),
                ("physicalSpec", spec),
            ])
            .await
        }
    };
    let body = update(r#"{"packSize": 200}"#).await.ok();
    assert_eq!(body["packId"], id.as_str());
    assert_eq!(body["physicalSpec"]["packSize"], 200);
    assert!(
        body["dropIns"]["finish"].is_string(),
        "updatePhysicalSpec answers with drop-ins"
    );
    let body = update(r#"{"paperLaminate": "matte", "paperClass": "quadplex_blue"}"#)
        .await
        .ok();
    assert_eq!(
        body["physicalSpec"],
        json!({"productType": "businesscard", "paperClass": "quadplex_blue", "finishingOption": "square_corners",
               "packSize": 200, "paperLaminate": "matte"})
    );
    let got = app
        .get(&[("method", "svc.pack.getPhysicalSpec"), ("packId", &id)])
        .await
        .ok();
    assert_eq!(got["physicalSpec"], body["physicalSpec"]);
    update("").await.error("missing_parameter");
    update("[").await.error("malformed_json");
}

async fn values_outside_the_table_are_errors_naming_field_and_allowed_values(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = app.create_pack("businesscard", &[]).await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let cases = [
        (
            r#"{"paperClass": "gold"}"#,
            "physicalSpec.paperClass: \"gold\" is not available for businesscard; allowed: classic, green, quadplex_black, quadplex_red, quadplex_blue, quadplex_white",
        ),
        (
            r#"{"paperClass": "quadplex_red", "finishingOption": "rounded_corners"}"#,
            "physicalSpec.finishingOption: \"rounded_corners\" is not available for businesscard on quadplex_red paper; allowed: square_corners",
        ),
        (
            r#"{"packSize": 100}"#,
            "physicalSpec.packSize: \"100\" is not available for businesscard; allowed: 50, 200",
        ),
        (
            r#"{"paperLaminate": "velvet"}"#,
            "physicalSpec.paperLaminate: \"velvet\" is not available for businesscard; allowed: nolam, matte, gloss",
        ),
        (
            r#"{"productType": "minicard"}"#,
            "physicalSpec.productType: \"minicard\" is not available (it must be the pack's product); allowed: businesscard",
        ),
        (
            r#"{"packSize": "50"}"#,
            "physicalSpec.packSize: expected a whole number from 0 to 4294967295, got \"50\"",
        ),
        (
            r#"{"colour": "red"}"#,
            "physicalSpec.colour: unknown property; allowed: productType, paperClass, finishingOption, packSize, paperLaminate",
        ),
    ];
    for (spec, expected) in cases {
        let message = app
            .post(&[
                ("method", "svc.pack.updatePhysicalSpec"),
                ("packId", &id),
                ("physicalSpec", spec),
            ])
            .await
            .error("invalid_physical_spec");
        assert_eq!(message, expected);
        let response = app
            .create_pack_response("businesscard", &[("physicalSpec", spec)])
            .await;
        if spec.contains("productType") {
            // createPack reads the product from productType too: two products named.
            let message = response.error("conflicting_parameters");
            assert!(
                message.starts_with("product, physicalSpec.productType:"),
                "{message}"
            );
        } else {
            assert_eq!(response.error("invalid_physical_spec"), expected);
        }
    }
}

/// Concurrent updates of different fields all land: each is a compare-and-swap on the
/// pack's revision, re-applied when another write got in first.
async fn concurrent_updates_lose_no_write(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for _ in 0..3 {
        let id = app.create_pack("businesscard", &[]).await["packId"]
            .as_str()
            .unwrap()
            .to_owned();
        let specs = [
            r#"{"paperLaminate": "gloss"}"#,
            r#"{"packSize": 200}"#,
            r#"{"paperClass": "green"}"#,
            r#"{"finishingOption": "rounded_corners"}"#,
        ];
        let calls = specs.iter().map(|spec| {
            let (app, id) = (&app, &id);
            async move {
                app.post(&[
                    ("method", "svc.pack.updatePhysicalSpec"),
                    ("packId", id),
                    ("physicalSpec", spec),
                ])
                .await
            }
        });
        for response in futures_util::future::join_all(calls).await {
            response.ok();
        }
        let got = app
            .get(&[("method", "svc.pack.getPhysicalSpec"), ("packId", &id)])
            .await
            .ok();
        assert_eq!(
            got["physicalSpec"],
            json!({"productType": "businesscard", "paperClass": "green", "finishingOption": "rounded_corners",
                   "packSize": 200, "paperLaminate": "gloss"})
        );
    }
}
