// The order confirmation callback (spec "Events"): tells each partner whose packs were
// ordered, from the customer's browser, the pack's trackingId and the order number. A
// form-encoded POST without credentials; `no-cors` because the partner's answer is not read.
for (const call of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#order-callbacks [data-callback-url]"))) {
  const body = new URLSearchParams({
    trackingId: call.dataset.trackingId,
    orderNumber: call.dataset.orderNumber,
  });
  fetch(call.dataset.callbackUrl, {
    method: "POST",
    mode: "no-cors",
    credentials: "omit",
    keepalive: true,
    body,
  }).then(
    () => { call.dataset.sent = "yes"; },
    () => { call.dataset.sent = "failed"; },
  );
}
