/**
 * Where a notice's link points inside the console, if it does (`http://127.0.0.1:7777/#/findings/R-1`
 * → `#/findings/R-1`); an https link (a pull request) is not a console view.
 */
export function consoleHash(url: string | null): string | null {
  if (!url || /^https:/i.test(url)) return null;
  const i = url.indexOf('#/');
  return i >= 0 ? url.slice(i) : null;
}
