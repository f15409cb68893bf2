//! What a press file says about itself: its info dictionary and XMP metadata (PDF/X-4's
//! version, dates and identity), its layers and its catalog with the output intent.

use pdf_writer::types::{OutputIntentSubtype, TrappingStatus};
use pdf_writer::{Date, Finish, Name, Pdf, TextStr};

use super::{DocumentInfo, DocumentRefs, GUIDES_LAYER, fnv1a};

/// The document's parts after its pages: info, metadata, the die line's and the proof
/// guides' layers, and the catalog with the output intent; then the file identifier.
pub(super) fn write_document(
    pdf: &mut Pdf,
    ids: &DocumentRefs,
    info: &DocumentInfo<'_>,
    pages: usize,
) {
    let condition = info.inks.condition;
    let date = pdf_date(info.created);
    let document_id = document_id(info, pages);
    {
        let mut doc = pdf.document_info(ids.info);
        doc.title(TextStr(info.title))
            .creator(TextStr("Presspack"))
            .producer(TextStr("Presspack (pdf-writer)"))
            .creation_date(date)
            .modified_date(date)
            .trapped(TrappingStatus::NotTrapped);
        doc.pair(Name(b"GTS_PDFXVersion"), TextStr("PDF/X-4"));
    }
    let xmp = xmp_metadata(info, &document_id);
    pdf.metadata(ids.metadata, xmp.as_bytes());

    {
        let mut layer = pdf.indirect(ids.die_layer).dict();
        layer.pair(Name(b"Type"), Name(b"OCG"));
        layer.pair(Name(b"Name"), TextStr("Dieline (not printed)"));
    }
    {
        let mut layer = pdf.indirect(ids.guides_layer).dict();
        layer.pair(Name(b"Type"), Name(b"OCG"));
        layer.pair(Name(b"Name"), TextStr(GUIDES_LAYER));
    }

    let mut catalog = pdf.catalog(ids.catalog);
    catalog.pages(ids.page_tree).metadata(ids.metadata);
    {
        let mut intents = catalog.output_intents();
        let mut intent = intents.push();
        intent
            .subtype(OutputIntentSubtype::PDFX)
            .output_condition_identifier(TextStr(&condition.identifier))
            .output_condition(TextStr(&condition.condition))
            .dest_output_profile(ids.output_profile);
        if let Some(registry) = condition.registry {
            intent.registry_name(TextStr(registry));
        }
    }
    {
        // The die line's layer: present so a press can turn it on, off by default. A proof's
        // cut and safe lines: on, so the customer sees them as in the editor.
        let mut properties = catalog.insert(Name(b"OCProperties")).dict();
        properties
            .insert(Name(b"OCGs"))
            .array()
            .items([ids.die_layer, ids.guides_layer]);
        let mut default = properties.insert(Name(b"D")).dict();
        default.pair(
            Name(b"Name"),
            TextStr(if info.guides { "Proof" } else { "Press" }),
        );
        default
            .insert(Name(b"Order"))
            .array()
            .items([ids.die_layer, ids.guides_layer]);
        default.insert(Name(b"OFF")).array().item(ids.die_layer);
    }
    catalog.finish();
    pdf.set_file_id((document_id.to_vec(), document_id.to_vec()));
}

/// The file identifier: the same inputs give the same file.
fn document_id(info: &DocumentInfo<'_>, pages: usize) -> [u8; 16] {
    let seed = format!("{}\n{}\n{pages}", info.title, info.created);
    let first = fnv1a(seed.as_bytes());
    let second = fnv1a(&first.to_le_bytes());
    let mut id = [0; 16];
    id[..8].copy_from_slice(&first.to_be_bytes());
    id[8..].copy_from_slice(&second.to_be_bytes());
    id
}

/// (year, month, day, hour, minute, second) of a Unix time, UTC.
fn civil_time(seconds: i64) -> (i64, u8, u8, u8, u8, u8) {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        (rest / 3600) as u8,
        (rest % 3600 / 60) as u8,
        (rest % 60) as u8,
    )
}

fn pdf_date(seconds: i64) -> Date {
    let (year, month, day, hour, minute, second) = civil_time(seconds);
    Date::new(year.clamp(0, 9999) as u16)
        .month(month)
        .day(day)
        .hour(hour)
        .minute(minute)
        .second(second)
        .utc_offset_hour(0)
        .utc_offset_minute(0)
}

/// The XMP packet PDF/X-4 requires: its version, the dates and the document's identity.
fn xmp_metadata(info: &DocumentInfo<'_>, document_id: &[u8; 16]) -> String {
    let (year, month, day, hour, minute, second) = civil_time(info.created);
    let date = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z");
    let uuid: String = document_id.iter().map(|b| format!("{b:02x}")).collect();
    let title = xml_escape(info.title);
    format!(
        r#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about=""
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
 xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
 xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>
<xmp:CreateDate>{date}</xmp:CreateDate>
<xmp:ModifyDate>{date}</xmp:ModifyDate>
<xmp:MetadataDate>{date}</xmp:MetadataDate>
<xmp:CreatorTool>Presspack</xmp:CreatorTool>
<pdf:Producer>Presspack (pdf-writer)</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
<xmpMM:DocumentID>uuid:{uuid}</xmpMM:DocumentID>
<xmpMM:InstanceID>uuid:{uuid}</xmpMM:InstanceID>
<xmpMM:VersionID>1</xmpMM:VersionID>
<xmpMM:RenditionClass>default</xmpMM:RenditionClass>
<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"#
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_become_calendar_dates() {
        assert_eq!(civil_time(0), (1970, 1, 1, 0, 0, 0));
        // 2026-11-27 03:04:05 UTC
        assert_eq!(civil_time(1_795_748_645), (2026, 11, 27, 3, 4, 5));
        assert_eq!(civil_time(951_782_400), (2000, 2, 29, 0, 0, 0));
    }
}
