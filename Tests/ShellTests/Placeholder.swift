// Placeholder so the test target builds; replaced by the real tests.
