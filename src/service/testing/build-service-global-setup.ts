// Suites that start the service as its own process (reliability, scale) run the built JavaScript,
// as a deployment does: the build comes first, the same `npm run build:service` an operator runs.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync('npm', ['run', '-s', 'build:service'], { stdio: 'inherit' });
}
