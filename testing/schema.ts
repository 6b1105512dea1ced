// vitest's setupFiles: every test file starts with the database schema installed
// (main/core/engine/migrations.ts, which the app's entry loads through session/core.ts), so a
// test may Store.open a database of any layer's tables directly.
import '../main/core/engine/migrations';
