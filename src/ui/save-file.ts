/**
 * Hands text or a file's bytes to the browser as a download named `name`. The anchor is in the
 * document while it is clicked (Firefox ignores a detached one) and the address lives long enough
 * for a slow save.
 */
export function saveFile(name: string, content: string | Blob, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(typeof content === 'string' ? new Blob([content], { type }) : content);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
