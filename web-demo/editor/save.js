// Saving: the pack's JSON posted to the design's saveUrl with the page's CSRF token; the
// server checks it as updatePack does and answers its warnings. Whether it was saved. Once
// the customer chose a design to start from, the save names it (`?design=`). On the demo
// canvas (a `startUrl` instead), saving keeps the design as a new pack of the visitor's and
// the editor goes on at its `edit` drop-in.

export async function save(d) {
  const target = d.design.saveUrl ?? d.design.startUrl;
  if (!target) return false;
  d.saveButton.disabled = true;
  d.announce("Saving…");
  d.showSaveState("Saving…");
  const body = JSON.stringify(d.pack);
  try {
    const url = new URL(target, location.href);
    if (d.designCode) url.searchParams.set("design", d.designCode);
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": d.csrf },
      body,
    });
    const reply = await response.json();
    if (!response.ok) throw new Error(reply.error?.message ?? `HTTP ${response.status}`);
    d.saved = body;
    if (reply.edit) {
      d.announce("Saved. Opening your design…");
      location.assign(reply.edit);
      return true;
    }
    d.showSaveState();
    d.announce(`Saved.${reply.warnings.length ? ` ${reply.warnings.length} thing(s) to check.` : ""}`);
    return true;
  } catch (error) {
    d.announce(`Not saved: ${error.message}`);
    d.showSaveState("Not saved");
    return false;
  } finally {
    d.saveButton.disabled = false;
  }
}
