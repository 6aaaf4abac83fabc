// Where the CLI writes: injectable so tests capture it.

export interface Output {
  stdout(line: string): void;
  stderr(line: string): void;
}

export const processOutput: Output = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/** How the CLI shows a secret: never a character of it, only that it is set and how long it is. */
export function maskSecret(secret: string): string {
  return `[redacted] (${secret.length} characters)`;
}
