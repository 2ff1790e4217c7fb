// What a watched app ignores: superd's defaults plus the app's ignore_watch (added to the
// defaults, never replacing them: PM2 #5016), plus the app's own log files.
// chokidar >= 4 takes no globs, so patterns are compiled here (pure, unit-tested):
//   a pattern without "/" matches any path segment:  node_modules, .git, *.log, *.tmp
//   a pattern with "/" matches the path relative to a watched root (or an absolute path):
//     dist/**, config/local.json, /srv/app/cache
//   *  any characters but "/"    **  anything, "/" included    ?  one character but "/"
import path from 'node:path';

export const DEFAULT_IGNORE = Object.freeze(['node_modules', '.git', '*.log']);

function globToRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++; // "**/" also matches no directory at all
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // "dir/**" covers dir itself too
  return new RegExp(glob.endsWith('/**') ? `^${re.slice(0, -3)}(/.*)?$` : `^${re}$`);
}

/**
 * @param {object} o
 * @param {string[]} o.roots     absolute watched paths
 * @param {string[]} [o.patterns]  the app's ignore_watch
 * @param {string[]} [o.files]   absolute paths always ignored (the app's log files, SUPER_HOME)
 * @returns {(file: string) => boolean}  true = ignore (file is absolute)
 */
export function makeIgnore({ roots, patterns = [], files = [] }) {
  const all = [...DEFAULT_IGNORE, ...patterns.map((p) => p.replace(/\/+$/, ''))];
  const segment = all.filter((p) => !p.includes('/')).map(globToRegExp);
  const anchored = all.filter((p) => p.includes('/')).map((p) => ({ abs: path.isAbsolute(p), re: globToRegExp(p.replace(/^\.\//, '')) }));
  const exact = files.map((f) => path.resolve(f));
  return (file) => {
    if (exact.some((f) => file === f || file.startsWith(`${f}${path.sep}`))) return true;
    for (const root of roots) {
      if (file !== root && !file.startsWith(`${root}${path.sep}`)) continue;
      const rel = path.relative(root, file);
      if (rel === '') continue;
      const parts = rel.split(path.sep);
      if (parts.some((s) => segment.some((re) => re.test(s)))) return true;
      // A directory pattern also covers what is inside it.
      for (const { abs, re } of anchored) {
        const subject = abs ? file : rel;
        const segs = subject.split('/');
        for (let n = segs.length; n > 0; n--) if (re.test(segs.slice(0, n).join('/'))) return true;
      }
    }
    return false;
  };
}
