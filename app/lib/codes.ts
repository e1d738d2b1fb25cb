// The shop's product codes (licence keys once sold), as every form and the licence API bound them.
// A module of its own: the licence API's schema needs the limit without the stock forms (decision 116).

/** The longest code the shop stocks, and so the longest key a licence check reads. */
export const MAX_CODE_LENGTH = 200;
