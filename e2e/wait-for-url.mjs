// Waits until a URL answers 2xx (at most 5 minutes): one web server of the e2e run starts after another.
const url = process.argv[2];
const deadline = Date.now() + 300_000;
for (;;) {
  const ok = await fetch(url).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) process.exit(0);
  if (Date.now() > deadline) {
    console.error(`${url} did not answer`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 500));
}
