// The one error of bundle verification a caller tells apart, in a module of its own so that
// catching it (the package's entry point re-exports it) loads none of the verification code.

/** Not a bundle at all: the user gave the wrong directory (exit 2, not a failed check). */
export class BundleInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleInputError';
  }
}
