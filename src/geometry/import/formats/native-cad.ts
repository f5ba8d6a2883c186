import { unsupported, type ImportError } from '../importer';

/** Native CAD files we recognise by extension but whose geometry we cannot read. */
export const NATIVE_CAD: Readonly<Record<string, string>> = {
  sldprt: 'a SolidWorks part',
  sldasm: 'a SolidWorks assembly',
  slddrw: 'a SolidWorks drawing',
  prt: 'a Creo or NX part',
  asm: 'a Creo or Solid Edge assembly',
  drw: 'a Creo drawing',
  catpart: 'a CATIA V5 part',
  catproduct: 'a CATIA V5 product (assembly)',
  catdrawing: 'a CATIA V5 drawing',
  cgr: 'a CATIA graphics file',
  ipt: 'an Inventor part',
  iam: 'an Inventor assembly',
  idw: 'an Inventor drawing',
  x_t: 'a Parasolid text file',
  x_b: 'a Parasolid binary file',
  xmt_txt: 'a Parasolid text file',
  xmt_bin: 'a Parasolid binary file',
  par: 'a Solid Edge part',
  psm: 'a Solid Edge sheet-metal part',
  pwd: 'a Solid Edge weldment',
  jt: 'a JT file',
  sat: 'an ACIS file',
  sab: 'an ACIS file',
  '3dm': 'a Rhino model',
  f3d: 'a Fusion 360 archive',
  fcstd: 'a FreeCAD document',
  skp: 'a SketchUp model',
  dwg: 'an AutoCAD drawing',
  dxf: 'a DXF drawing',
};

const REMEDY = 'export it as STEP (or STL) from the program that made it and upload that file instead';

/** `unsupported` with a reason naming the program, e.g. "This file is a SolidWorks part (.sldprt); …". */
export function nativeCadError(ext: string): ImportError | undefined {
  const what = NATIVE_CAD[ext];
  if (!what) return undefined;
  return unsupported(`This file is ${what} (.${ext}); its geometry cannot be read — ${REMEDY}.`);
}
