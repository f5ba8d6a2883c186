import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_EXTENSIONS,
  extensionOf,
  fileKindOf,
  formatOf,
  formatOfExtension,
  isMeshFormat,
  isNativeAssemblyFile,
  isStepFile,
  NATIVE_CAD_EXTENSIONS,
  needsDeclaredUnit,
  READABLE_EXTENSIONS,
  READABLE_FORMATS,
} from './file-types';

describe('extensionOf', () => {
  it('is the last part after a dot, in lower case, folders ignored', () => {
    expect(extensionOf('bracket.stl')).toBe('stl');
    expect(extensionOf('Bracket.STEP')).toBe('step');
    expect(extensionOf('asm/parts/Gear.P21')).toBe('p21');
    expect(extensionOf('C:\\parts\\flange.IGS')).toBe('igs');
    expect(extensionOf('v1.2.stl')).toBe('stl');
    expect(extensionOf('part.tar.gz')).toBe('gz');
  });

  it('skips a version number after an extension (Creo keeps bracket.prt.1, bracket.prt.2, …)', () => {
    expect(extensionOf('bracket.prt.3')).toBe('prt');
    expect(extensionOf('asm/parts/Bracket.PRT.12')).toBe('prt');
    expect(extensionOf('top.asm.7')).toBe('asm');
    // A number alone is the extension; so is the last of two numbers.
    expect(extensionOf('scan.001')).toBe('001');
    expect(extensionOf('part.1.2')).toBe('2');
  });

  it('is "" without an extension, for dotfiles and for a trailing dot', () => {
    expect(extensionOf('README')).toBe('');
    expect(extensionOf('./a/b.c/part')).toBe('');
    expect(extensionOf('.hidden')).toBe('');
    expect(extensionOf('.stl')).toBe('');
    expect(extensionOf('folder/.stl')).toBe('');
    expect(extensionOf('part.')).toBe('');
    expect(extensionOf('')).toBe('');
  });

  it('keeps the extension of a dotfile that has one', () => {
    expect(extensionOf('.config.stl')).toBe('stl');
  });
});

describe('formats and kinds', () => {
  it('reads .p21 as STEP everywhere STEP is asked about', () => {
    expect(formatOf('gear.p21')).toBe('step');
    expect(isStepFile('gear.P21')).toBe(true);
    expect(fileKindOf('gear.p21')).toBe('cad');
    expect(ACCEPTED_EXTENSIONS).toContain('p21');
  });

  it('names each extension by one format, and every format id is one of its own extensions', () => {
    expect(new Set(READABLE_EXTENSIONS).size).toBe(READABLE_EXTENSIONS.length);
    for (const [id, f] of Object.entries(READABLE_FORMATS)) expect(f.extensions as readonly string[]).toContain(id);
    expect(READABLE_EXTENSIONS.filter((e) => NATIVE_CAD_EXTENSIONS.includes(e))).toEqual([]);
  });

  it('finds the format of a bare extension in any spelling', () => {
    expect(formatOfExtension('STL')).toBe('stl');
    expect(formatOfExtension('.stp')).toBe('step');
    expect(formatOfExtension('brp')).toBe('brep');
    expect(formatOfExtension('sldprt')).toBeUndefined();
  });

  it('tells mesh, CAD exchange and native CAD apart, and refuses the rest', () => {
    expect(fileKindOf('a.3MF')).toBe('mesh');
    expect(fileKindOf('a.glb')).toBe('mesh');
    expect(fileKindOf('a.igs')).toBe('cad');
    expect(fileKindOf('a.brp')).toBe('cad');
    expect(fileKindOf('bracket.prt.3')).toBe('native');
    expect(fileKindOf('a.x_t')).toBe('native');
    expect(fileKindOf('photo.png')).toBeNull();
    expect(fileKindOf('README')).toBeNull();
    expect(fileKindOf('a.constructor')).toBeNull();
    expect(isMeshFormat('a.ply')).toBe(true);
    expect(isMeshFormat('a.step')).toBe(false);
  });

  it('knows native assemblies and which meshes carry no unit', () => {
    expect(isNativeAssemblyFile('top.asm.4')).toBe(true);
    expect(isNativeAssemblyFile('part.sldprt')).toBe(false);
    expect(needsDeclaredUnit('a.STL')).toBe(true);
    expect(needsDeclaredUnit('a.off')).toBe(true);
    expect(needsDeclaredUnit('a.glb')).toBe(false);
    expect(needsDeclaredUnit('a.step')).toBe(false);
    expect(needsDeclaredUnit('a.sldprt')).toBe(false);
  });
});
