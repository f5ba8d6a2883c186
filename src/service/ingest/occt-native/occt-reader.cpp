// Native STEP/IGES/BREP reader: occt-import-js's own importer (its C++ sources, shipped in the npm
// package) built against the machine's OpenCascade instead of WebAssembly, writing the same result
// the package's ReadFile answers as JSON. Same tessellation parameters in, same structure out, so
// a file read by either reader gives the same search features (README beside this file).
//
//   occt-reader <step|iges|brep> <input> <output.json> <linear deflection> <angular deflection> <memory MB> <CPU seconds>
//
// Exit status: 0 read (the JSON says success or not), 2 bad arguments, 3 the input or output
// could not be opened, 4 out of memory. The limits are this process's own (address space and CPU
// time, 0 for none): past them it fails or is killed, never the caller; it also dies with the
// thread that started it.
#include "importer-brep.hpp"
#include "importer-iges.hpp"
#include "importer-step.hpp"
#include "importer-utils.hpp"

#include <BRepBndLib.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <Bnd_Box.hxx>
#include <Precision.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <Standard_Failure.hxx>
#include <TDF_LabelSequence.hxx>
#include <TopoDS_Shape.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <Standard_OutOfMemory.hxx>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <functional>
#include <new>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// JSON text to a file, or to a string (the product tree, written after the meshes).
class JsonOut {
public:
    explicit JsonOut (FILE* f) : mFile (f) {}
    explicit JsonOut (std::string& s) : mString (&s) {}
    void Raw (const char* s)
    {
        if (mString) mString->append (s);
        else std::fputs (s, mFile);
    }
    void Number (double v)
    {
        char buf[32];
        std::snprintf (buf, sizeof buf, "%.9g", v);
        Raw (buf);
    }
    void Int (long long v)
    {
        char buf[32];
        std::snprintf (buf, sizeof buf, "%lld", v);
        Raw (buf);
    }
    void String (const std::string& s)
    {
        std::string quoted = "\"";
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') {
                quoted += '\\';
                quoted += static_cast<char> (c);
            } else if (c < 0x20) {
                char buf[8];
                std::snprintf (buf, sizeof buf, "\\u%04x", c);
                quoted += buf;
            } else {
                quoted += static_cast<char> (c);
            }
        }
        quoted += '"';
        Raw (quoted.c_str ());
    }
    void Color (const ::Color& c)
    {
        Raw ("[");
        Number (c.r);
        Raw (",");
        Number (c.g);
        Raw (",");
        Number (c.b);
        Raw ("]");
    }

private:
    FILE* mFile = nullptr;
    std::string* mString = nullptr;
};

class ResultWriter {
public:
    ResultWriter (JsonOut& out, bool faceColors) : mOut (out), mFaceColors (faceColors) {}

    // Meshes in the order the package numbers them: depth first, a node's own before its
    // children's. The tree that numbers them is kept as it goes (Tree ()), so the nodes are walked
    // once: every walk of the root meshes its shapes again.
    void WriteMeshes (const NodePtr& node)
    {
        JsonOut tree (mTree);
        tree.Raw ("{\"name\":");
        tree.String (node->GetName ());
        tree.Raw (",\"meshes\":[");
        if (node->IsMeshNode ()) {
            bool first = true;
            node->EnumerateMeshes ([&] (const Mesh& mesh) {
                if (!first) tree.Raw (",");
                first = false;
                tree.Int (mMeshCount);
                WriteMesh (mesh);
            });
        }
        tree.Raw ("],\"children\":[");
        bool first = true;
        for (const NodePtr& child : node->GetChildren ()) {
            if (!first) JsonOut (mTree).Raw (",");
            first = false;
            WriteMeshes (child);
        }
        JsonOut (mTree).Raw ("]}");
    }

    const std::string& Tree () const { return mTree; }

private:
    void WriteMesh (const Mesh& mesh)
    {
        if (mMeshCount++ > 0) mOut.Raw (",");
        mOut.Raw ("{\"name\":");
        mOut.String (mesh.GetName ());
        ::Color meshColor;
        if (mesh.GetColor (meshColor)) {
            mOut.Raw (",\"color\":");
            mOut.Color (meshColor);
        }
        // Positions, then indices offset by the face's first vertex, then faces: three passes,
        // as the JSON needs each array whole.
        mOut.Raw (",\"attributes\":{\"position\":{\"array\":[");
        bool first = true;
        mesh.EnumerateFaces ([&] (const Face& face) {
            face.EnumerateVertices ([&] (double x, double y, double z) {
                if (!first) mOut.Raw (",");
                first = false;
                mOut.Number (x);
                mOut.Raw (",");
                mOut.Number (y);
                mOut.Raw (",");
                mOut.Number (z);
            });
        });
        mOut.Raw ("]}},\"index\":{\"array\":[");
        first = true;
        long long vertexCount = 0;
        long long triangleCount = 0;
        mesh.EnumerateFaces ([&] (const Face& face) {
            long long offset = vertexCount;
            face.EnumerateVertices ([&] (double, double, double) { vertexCount++; });
            face.EnumerateTriangles ([&] (int a, int b, int c) {
                if (!first) mOut.Raw (",");
                first = false;
                mOut.Int (offset + a);
                mOut.Raw (",");
                mOut.Int (offset + b);
                mOut.Raw (",");
                mOut.Int (offset + c);
                triangleCount++;
            });
        });
        mOut.Raw ("]},\"brep_faces\":[");
        first = true;
        long long before = 0;
        mesh.EnumerateFaces ([&] (const Face& face) {
            long long count = 0;
            face.EnumerateTriangles ([&] (int, int, int) { count++; });
            if (!first) mOut.Raw (",");
            first = false;
            mOut.Raw ("{\"first\":");
            mOut.Int (before);
            mOut.Raw (",\"last\":");
            mOut.Int (before + count - 1);
            ::Color faceColor;
            if (mFaceColors && face.GetColor (faceColor)) {
                mOut.Raw (",\"color\":");
                mOut.Color (faceColor);
            } else {
                mOut.Raw (",\"color\":null");
            }
            mOut.Raw ("}");
            before += count;
        });
        mOut.Raw ("]}");
    }

    JsonOut& mOut;
    bool mFaceColors;
    std::string mTree;
    int mMeshCount = 0;
};

// The XCAF importers keep their document's shape tool to themselves; this reads it.
template <class Base>
class Exposed : public Base {
public:
    const Handle (XCAFDoc_ShapeTool)& Shapes () const { return this->shapeTool; }
};

// The package's STEP transfer (importer-step.cpp) without what its result never uses: layers,
// validation properties, GD&T, materials and saved views. Names and colours are read as there.
class StepReader : public Exposed<ImporterStep> {
private:
    bool TransferToDocument (const std::vector<std::uint8_t>& fileContent) override
    {
        STEPCAFControl_Reader reader;
        reader.SetColorMode (true);
        reader.SetNameMode (true);
        reader.SetLayerMode (false);
        reader.SetPropsMode (false);
        reader.SetGDTMode (false);
        reader.SetMatMode (false);
        reader.SetViewMode (false);
        VectorBuffer inputBuffer (fileContent);
        std::istream inputStream (&inputBuffer);
        if (reader.ChangeReader ().ReadStream ("stp", inputStream) != IFSelect_RetDone) return false;
        return reader.Transfer (this->document);
    }
};

// A face has a colour of its own only through a label of its own: a sub-shape label, or a
// top-level shape that is a face. Without any, asking each face (the package searches every
// label of the document, per face) finds nothing and costs time that grows with the square of
// the file: 9 of the 20 s of a 25 MB assembly. The answer is the same either way.
bool MayColorFaces (const Handle (XCAFDoc_ShapeTool)& shapes)
{
    if (shapes.IsNull ()) return true;
    TDF_LabelSequence labels;
    shapes->GetShapes (labels);
    for (TDF_LabelSequence::Iterator it (labels); it.More (); it.Next ()) {
        TDF_LabelSequence subShapes;
        if (XCAFDoc_ShapeTool::GetSubShapes (it.Value (), subShapes) && !subShapes.IsEmpty ()) return true;
        const TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape (it.Value ());
        if (!shape.IsNull () && shape.ShapeType () == TopAbs_FACE) return true;
    }
    return false;
}

// The package meshes each free shape on one core (TriangulateShape, importer-utils.cpp). Meshing
// them first on every core, with the deflection it computes from the same box, leaves its own
// pass nothing to do; faces are meshed one by one either way, so the triangles are the same.
void MeshInParallel (const Handle (XCAFDoc_ShapeTool)& shapes, const ImportParams& params)
{
    if (shapes.IsNull () || params.linearDeflectionType != ImportParams::LinearDeflectionType::BoundingBoxRatio) return;
    TDF_LabelSequence labels;
    shapes->GetFreeShapes (labels);
    for (TDF_LabelSequence::Iterator it (labels); it.More (); it.Next ()) {
        const TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape (it.Value ());
        Bnd_Box box;
        BRepBndLib::Add (shape, box, false);
        if (box.IsVoid ()) continue;
        Standard_Real xMin, yMin, zMin, xMax, yMax, zMax;
        box.Get (xMin, yMin, zMin, xMax, yMax, zMax);
        const Standard_Real linear = ((xMax - xMin) + (yMax - yMin) + (zMax - zMin)) / 3.0 * params.linearDeflection;
        if (linear < Precision::Confusion ()) continue;  // the package's own fallback decides
        BRepMesh_IncrementalMesh (shape, linear, Standard_False, params.angularDeflection, Standard_True);
    }
}

}  // namespace

int main (int argc, char** argv)
{
    if (argc != 8) {
        std::fprintf (stderr, "usage: occt-reader <step|iges|brep> <input> <output.json> <linear> <angular> <memory MB> <CPU seconds>\n");
        return 2;
    }
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    const std::string format = argv[1];
    const long long memoryMb = std::atoll (argv[6]);
    if (memoryMb > 0) {
        rlimit limit;
        limit.rlim_cur = limit.rlim_max = static_cast<rlim_t> (memoryMb) * 1024 * 1024;
        setrlimit (RLIMIT_AS, &limit);
    }
    const long long cpuSeconds = std::atoll (argv[7]);
    if (cpuSeconds > 0) {
        rlimit limit;
        limit.rlim_cur = static_cast<rlim_t> (cpuSeconds);
        limit.rlim_max = static_cast<rlim_t> (cpuSeconds + 1);
        setrlimit (RLIMIT_CPU, &limit);
    }

    ImporterPtr importer;
    std::function<bool ()> mayColorFacesOf = [] { return true; };
    std::function<void (const ImportParams&)> meshFirst = [] (const ImportParams&) {};
    if (format == "step") {
        auto step = std::make_shared<StepReader> ();
        mayColorFacesOf = [step] { return MayColorFaces (step->Shapes ()); };
        meshFirst = [step] (const ImportParams& p) { MeshInParallel (step->Shapes (), p); };
        importer = step;
    } else if (format == "iges") {
        auto iges = std::make_shared<Exposed<ImporterIges>> ();
        mayColorFacesOf = [iges] { return MayColorFaces (iges->Shapes ()); };
        meshFirst = [iges] (const ImportParams& p) { MeshInParallel (iges->Shapes (), p); };
        importer = iges;
    } else if (format == "brep") {
        importer = std::make_shared<ImporterBrep> ();
    } else {
        return 2;
    }

    ImportParams params;
    params.linearUnit = ImportParams::LinearUnit::Millimeter;
    params.linearDeflectionType = ImportParams::LinearDeflectionType::BoundingBoxRatio;
    params.linearDeflection = std::atof (argv[4]);
    params.angularDeflection = std::atof (argv[5]);

    Importer::Result result;
    try {
        result = importer->LoadFile (std::string (argv[2]), params);
        if (result == Importer::Result::Success) meshFirst (params);
    } catch (const std::bad_alloc&) {
        return 4;
    } catch (const Standard_OutOfMemory&) {
        return 4;
    } catch (const Standard_Failure&) {
        result = Importer::Result::ImportFailed;
    }
    if (result == Importer::Result::FileNotFound) return 3;

    FILE* f = std::fopen (argv[3], "wb");
    if (!f) return 3;
    static char buffer[1 << 16];
    std::setvbuf (f, buffer, _IOFBF, sizeof buffer);
    JsonOut out (f);
    if (result != Importer::Result::Success) {
        out.Raw ("{\"success\":false}");
    } else {
        NodePtr root = importer->GetRootNode ();
        ResultWriter writer (out, mayColorFacesOf ());
        out.Raw ("{\"success\":true,\"meshes\":[");
        writer.WriteMeshes (root);
        out.Raw ("],\"root\":");
        out.Raw (writer.Tree ().c_str ());
        out.Raw ("}");
    }
    return std::fclose (f) == 0 ? 0 : 3;
}
