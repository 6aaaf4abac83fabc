// Where the CLI writes: injectable so tests capture it.

export interface Output {
  stdout(line: string): void;
  stderr(line: string): void;
}

export const processOutput: Output = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};
