/** USD_BRL_RATE read: BRL per US dollar, or null when unset. Checked at start, so a typo stops the gateway there. */
export function usdBrlRate(text: string): number | null {
  if (text.trim() === '') return null;
  const rate = Number(text);
  if (!Number.isFinite(rate) || rate <= 0) throw new Error('USD_BRL_RATE: a positive number (BRL per US dollar)');
  return rate;
}
