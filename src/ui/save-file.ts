/**
 * Hands text to the browser as a download named `name`. The anchor is in the document while it is
 * clicked (Firefox ignores a detached one) and the address lives long enough for a slow save.
 */
export function saveTextFile(name: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
