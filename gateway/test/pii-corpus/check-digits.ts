/**
 * Check-digit arithmetic for generating corpus values, written independently of the recognizers' validators so the
 * corpus cross-checks them instead of echoing them.
 */

export function luhnCheckDigit(body: string): string {
  // Double every second digit from the right of the full number, i.e. starting with the body's last digit.
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function cpfWithDigits(nine: string): string {
  const dv = (s: string): string => {
    let sum = 0;
    for (let i = 0; i < s.length; i++) sum += Number(s[i]) * (s.length + 1 - i);
    const r = sum % 11;
    return String(r < 2 ? 0 : 11 - r);
  };
  const d1 = dv(nine);
  return nine + d1 + dv(nine + d1);
}

export function cnpjWithDigits(twelve: string): string {
  const dv = (s: string): string => {
    let sum = 0;
    let w = 2;
    for (let i = s.length - 1; i >= 0; i--) {
      sum += (s.charCodeAt(i) - 48) * w;
      w = w === 9 ? 2 : w + 1;
    }
    const r = sum % 11;
    return String(r < 2 ? 0 : 11 - r);
  };
  const d1 = dv(twelve);
  return twelve + d1 + dv(twelve + d1);
}

function mod97(s: string): number {
  let r = 0;
  for (const ch of s) {
    const v = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) r = (r * 10 + Number(d)) % 97;
  }
  return r;
}

export function ibanWithDigits(country: string, bban: string): string {
  const check = 98 - mod97(bban + country + '00');
  return country + String(check).padStart(2, '0') + bban;
}
