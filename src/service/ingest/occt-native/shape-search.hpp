// XCAFDoc_ShapeTool::Search with its assembly-component step answered from a map built once.
// The package's importer (importer-xcaf.cpp) asks Search for the label of every solid it writes,
// for its name and colour; for a placed solid, OpenCascade 7.6 walks every component of every
// assembly of the document until one is the same shape, so the cost grows with the square of the
// assembly: 1.5 of the 9.7 s a 25 MB STEP of 57 assemblies took. build-reader.ts compiles the
// importer with its two Search calls replaced by SearchShape. The steps and their order are
// Search's own (a top-level instance, then the first component that is the same shape, in the
// order Search walks them, then a top-level shape without its placement, then a sub-shape), so
// the answer is the same label.
#pragma once

#include <NCollection_DataMap.hxx>
#include <TDF_Label.hxx>
#include <TDF_LabelSequence.hxx>
#include <TopTools_ShapeMapHasher.hxx>
#include <TopoDS_Shape.hxx>
#include <XCAFDoc_ShapeTool.hxx>

inline Standard_Boolean SearchShape (const Handle (XCAFDoc_ShapeTool)& tool, const TopoDS_Shape& shape, TDF_Label& label)
{
    if (shape.Location ().IsIdentity ()) return tool->Search (shape, label);  // no component step for it
    if (tool->FindShape (shape, label, Standard_True)) return Standard_True;

    // Components do not change while the result is written (Search only adds sub-shape labels).
    static Handle (XCAFDoc_ShapeTool) indexed;
    static NCollection_DataMap<TopoDS_Shape, TDF_Label, TopTools_ShapeMapHasher> components;
    if (indexed != tool) {
        indexed = tool;
        components.Clear ();
        TDF_LabelSequence shapes;
        tool->GetShapes (shapes);
        for (TDF_LabelSequence::Iterator it (shapes); it.More (); it.Next ()) {
            if (!XCAFDoc_ShapeTool::IsAssembly (it.Value ())) continue;
            TDF_LabelSequence parts;
            XCAFDoc_ShapeTool::GetComponents (it.Value (), parts);
            for (TDF_LabelSequence::Iterator part (parts); part.More (); part.Next ()) {
                const TopoDS_Shape placed = XCAFDoc_ShapeTool::GetShape (part.Value ());
                if (!placed.IsNull () && !components.IsBound (placed)) components.Bind (placed, part.Value ());
            }
        }
    }
    if (const TDF_Label* found = components.Seek (shape)) {
        label = *found;
        return Standard_True;
    }
    return tool->Search (shape, label, Standard_False, Standard_False, Standard_True);
}
