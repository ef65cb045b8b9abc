// Storage for Node (the adapter): a folder of files. Kept apart from io.js so pages never
// import node:fs.

import fs from 'node:fs';
import path from 'node:path';

// One JSON file per key in a folder that survives the process (the adapter's `storage`).
/** @typedef {import('./io.js').Storage} Storage */

/** @implements {Storage} */
export class FileStorage {
  /** @param {string} folder created when missing */
  constructor(folder) {
    this.folder = folder;
    fs.mkdirSync(folder, { recursive: true });
  }
  /** @param {string} key */
  load(key) {
    try {
      return fs.readFileSync(path.join(this.folder, key), 'utf8');
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return null;
      throw e;
    }
  }
  /**
   * @param {string} key
   * @param {string} text
   */
  save(key, text) {
    // Write then rename: a process killed mid-write leaves the previous answer, never half a file.
    const file = path.join(this.folder, key);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
}
