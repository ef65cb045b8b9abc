// Storage for Node (the adapter): a folder of files. Kept apart from io.js so pages never
// import node:fs.

import fs from 'node:fs';
import path from 'node:path';

// One JSON file per key in a folder that survives the process (the adapter's `storage`).
export class FileStorage {
  constructor(folder) {
    this.folder = folder;
    fs.mkdirSync(folder, { recursive: true });
  }
  load(key) {
    try {
      return fs.readFileSync(path.join(this.folder, key), 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
  }
  save(key, text) {
    // Write then rename: a process killed mid-write leaves the previous answer, never half a file.
    const file = path.join(this.folder, key);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
}
