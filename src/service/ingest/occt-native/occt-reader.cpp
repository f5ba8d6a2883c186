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

#include <Standard_Failure.hxx>
#include <Standard_OutOfMemory.hxx>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <new>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

class JsonOut {
public:
    explicit JsonOut (FILE* f) : mFile (f) {}
    void Raw (const char* s) { std::fputs (s, mFile); }
    void Number (double v)
    {
        char buf[32];
        std::snprintf (buf, sizeof buf, "%.9g", v);
        Raw (buf);
    }
    void Int (long long v) { std::fprintf (mFile, "%lld", v); }
    void String (const std::string& s)
    {
        std::fputc ('"', mFile);
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') {
                std::fputc ('\\', mFile);
                std::fputc (c, mFile);
            } else if (c < 0x20) {
                std::fprintf (mFile, "\\u%04x", c);
            } else {
                std::fputc (c, mFile);
            }
        }
        std::fputc ('"', mFile);
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
    FILE* mFile;
};

class ResultWriter {
public:
    explicit ResultWriter (JsonOut& out) : mOut (out) {}

    // Meshes in the order the package numbers them: depth first, a node's own before its children's.
    void WriteMeshes (const NodePtr& node)
    {
        if (node->IsMeshNode ()) {
            node->EnumerateMeshes ([&] (const Mesh& mesh) { WriteMesh (mesh); });
        }
        for (const NodePtr& child : node->GetChildren ()) {
            WriteMeshes (child);
        }
    }

    void WriteNode (const NodePtr& node)
    {
        mOut.Raw ("{\"name\":");
        mOut.String (node->GetName ());
        mOut.Raw (",\"meshes\":[");
        if (node->IsMeshNode ()) {
            bool first = true;
            node->EnumerateMeshes ([&] (const Mesh&) {
                if (!first) mOut.Raw (",");
                first = false;
                mOut.Int (mNodeMeshes++);
            });
        }
        mOut.Raw ("],\"children\":[");
        bool first = true;
        for (const NodePtr& child : node->GetChildren ()) {
            if (!first) mOut.Raw (",");
            first = false;
            WriteNode (child);
        }
        mOut.Raw ("]}");
    }

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
            if (face.GetColor (faceColor)) {
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
    int mMeshCount = 0;
    int mNodeMeshes = 0;
};

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
    if (format == "step") importer = std::make_shared<ImporterStep> ();
    else if (format == "iges") importer = std::make_shared<ImporterIges> ();
    else if (format == "brep") importer = std::make_shared<ImporterBrep> ();
    else return 2;

    ImportParams params;
    params.linearUnit = ImportParams::LinearUnit::Millimeter;
    params.linearDeflectionType = ImportParams::LinearDeflectionType::BoundingBoxRatio;
    params.linearDeflection = std::atof (argv[4]);
    params.angularDeflection = std::atof (argv[5]);

    Importer::Result result;
    try {
        result = importer->LoadFile (std::string (argv[2]), params);
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
        ResultWriter writer (out);
        out.Raw ("{\"success\":true,\"meshes\":[");
        writer.WriteMeshes (root);
        out.Raw ("],\"root\":");
        writer.WriteNode (root);
        out.Raw ("}");
    }
    return std::fclose (f) == 0 ? 0 : 3;
}
