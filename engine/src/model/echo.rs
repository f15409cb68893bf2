//! A pack as a response returns it (wire-formats section 9): each text datum carries the
//! resolved `pointSize`, `font`, `colour` and `alignment`, from its template where the client
//! left them out; everything the client sent stays as sent. MOO's own clients (moo.rb) cannot
//! read a pack back without these fields.

use serde_json::{Map, Value, json};

use super::{Alignment, ItemKind, Template};

/// `pack` (a stored pack's JSON) with every text datum's missing style fields filled from the
/// template `template_of` gives for its side's `templateCode`. A side without a known
/// template, and a datum whose linkId is no text item of it, are returned as they are.
pub fn with_text_styles<'t>(
    pack: &Value,
    template_of: impl Fn(&str) -> Option<&'t Template>,
) -> Value {
    let mut pack = pack.clone();
    let Some(sides) = pack.get_mut("sides").and_then(Value::as_array_mut) else {
        return pack;
    };
    for side in sides {
        let Some(template) = side
            .get("templateCode")
            .and_then(Value::as_str)
            .and_then(&template_of)
        else {
            continue;
        };
        let Some(data) = side.get_mut("data").and_then(Value::as_array_mut) else {
            continue;
        };
        for datum in data.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(style) = text_style(datum, template) {
                for (key, value) in style {
                    datum.entry(key).or_insert(value);
                }
            }
        }
    }
    pack
}

/// The template's style of a text datum's item, as datum fields.
fn text_style(datum: &Map<String, Value>, template: &Template) -> Option<Map<String, Value>> {
    let kind = datum.get("type").and_then(Value::as_str)?;
    if !matches!(kind, "textData" | "multiLineTextData") {
        return None;
    }
    let link_id = datum.get("linkId").and_then(Value::as_str)?;
    let item = template.items.iter().find(|item| item.link_id == link_id)?;
    let ItemKind::Text(text) = &item.kind else {
        return None;
    };
    let alignment = match text.alignment {
        Alignment::Left => "left",
        Alignment::Center => "center",
        Alignment::Right => "right",
    };
    let mut style = Map::new();
    style.insert("pointSize".into(), json!(text.point_size));
    style.insert(
        "font".into(),
        json!({"fontFamily": text.font.family, "bold": text.font.bold, "italic": text.font.italic}),
    );
    style.insert("colour".into(), serde_json::to_value(text.colour).ok()?);
    style.insert("alignment".into(), json!(alignment));
    Some(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str =
        include_str!("../../../assets/templates/businesscard_full_text_landscape.xml");

    #[test]
    fn missing_style_fields_come_from_the_template_and_sent_ones_stay() {
        let template = Template::parse(TEMPLATE).unwrap();
        let pack = json!({"sides": [{"type": "details", "sideNum": 1,
            "templateCode": "businesscard_full_text_landscape",
            "data": [
                {"type": "textData", "linkId": "back_line_1", "text": "Ann"},
                {"type": "textData", "linkId": "back_line_2", "text": "Bo", "pointSize": 4.5,
                 "extra": [1, 2]},
                {"type": "textData", "linkId": "no_such_item", "text": "kept"}]},
            {"type": "image", "sideNum": 1, "templateCode": "unknown", "data": [
                {"type": "textData", "linkId": "back_line_1", "text": "as sent"}]}]});
        let echoed = with_text_styles(&pack, |code| (code == template.code).then_some(&template));
        let data = &echoed["sides"][0]["data"];
        assert_eq!(data[0]["font"]["fontFamily"], "Helvetica");
        assert_eq!(data[0]["colour"]["type"], "RGB");
        assert!(data[0]["pointSize"].as_f64().unwrap() > 0.0);
        assert!(["left", "center", "right"].contains(&data[0]["alignment"].as_str().unwrap()));
        assert_eq!(data[1]["pointSize"], 4.5, "sent, so kept");
        assert_eq!(data[1]["extra"], json!([1, 2]));
        assert_eq!(data[2], pack["sides"][0]["data"][2]);
        assert_eq!(echoed["sides"][1], pack["sides"][1]);
    }
}
