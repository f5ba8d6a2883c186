// The one way the app writes a number of bytes. Binary units under their IEC names ("12.3 MiB"):
// the sizes the app states as limits (10 MiB images, the 4 GiB default upload limit, 8 MiB of a
// STEP file scanned) are powers of 1024, and only binary units show them as the round numbers
// they are; the IEC names say which units they are, so no page can mean 1000 where another means 1024.
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const units = ['KiB', 'MiB', 'GiB', 'TiB'];

/**
 * "812 bytes", "4.7 MiB", "10 MiB". `round: 'up'` for a size over a limit, so a file just over
 * 10 MiB reads "10.1 MiB", never "10 MiB".
 */
export function formatBytes(bytes: number, round: 'nearest' | 'up' = 'nearest'): string {
  if (bytes < 1024) return `${oneDecimal.format(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1023.95 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const tenths = round === 'up' ? Math.ceil(value * 10) : Math.round(value * 10);
  return `${oneDecimal.format(tenths / 10)} ${units[unit]!}`;
}
