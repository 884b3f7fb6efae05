// The gateway declared in one file: the schema it is checked against, the loader (text to a checked
// file, every value located) and the compiler (a checked file to the same mounts TypeScript declares).
export { compileDeclarations, type Compiled, type CompileContext, type DeclaredMount } from './compiler.js'
export { DeclarationFileError, refusalReport, type Issue } from './errors.js'
export { loadDeclarationFile, type LoadedFile } from './loader.js'
export { DeclarationFileSchema, SCHEMA_PATH, type DeclarationFile } from './schema.js'
