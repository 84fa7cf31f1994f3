/** @see ./wasm.ts */
import { compilerBase64 } from './wasm.ts';

export const wasm = compilerBase64('postgresql');
