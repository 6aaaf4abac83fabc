// Where the CLI writes: injectable so tests capture it.

export interface Output {
  stdout(line: string): void;
  stderr(line: string): void;
}

export const processOutput: Output = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/** How the CLI shows a secret: its first four characters and its length, or `[redacted]` when short. */
export function maskSecret(secret: string): string {
  return secret.length >= 24
    ? `${secret.slice(0, 4)}…(${secret.length} chars)`
    : `[redacted] (${secret.length} chars)`;
}
