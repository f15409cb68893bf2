// The finish page's running price: the chosen paper and pack size's price times the number
// of packs, kept up to date as the options change. The page gives the price list (in minor
// units) and how its currency writes an amount ("£{}"); without a script, the table of
// prices below the form says the same.
const form = /** @type {HTMLFormElement | null} */ (document.querySelector("form[data-prices]"));
if (form) {
  const prices = JSON.parse(form.dataset.prices);
  const [before, after] = form.dataset.money.split("{}");
  const money = (minor) => `${before}${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}${after}`;
  const output = form.querySelector("#running-price");
  /** @type {(name: string) => HTMLInputElement} */
  const field = (name) => /** @type {any} */ (form.elements.namedItem(name));
  const show = () => {
    const unit = prices[field("paperClass").value]?.[field("packSize").value];
    const quantity = Number(field("quantity").value);
    const most = Number(field("quantity").max);
    if (unit === undefined || !Number.isInteger(quantity) || quantity < 1 || quantity > most) {
      output.textContent = `Choose 1 to ${most} packs to see the price.`;
      return;
    }
    const packs = quantity === 1 ? "1 pack" : `${quantity} packs`;
    output.textContent = `${money(unit * quantity)} for ${packs} of ${field("packSize").value} cards (${money(unit)} a pack)`;
  };
  form.addEventListener("input", show);
  form.addEventListener("change", show);
  show();
}
